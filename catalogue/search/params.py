"""The query string of ``GET /v1/foods``, parsed into a ``FoodQuery`` (pure, no database).

Every malformed or unknown parameter is ``InvalidParameter`` naming it (issue 3, point
7). Names (docs/catalogue.md, "Searching foods"):

    q                    search text, at most 200 characters as typed and as searched
                         (after normalisation, catalogue.search.text.words)
    data_type            comma list of catalogue.models.DataType values
    category             comma list of category ids (slugs)
    brand                brand owner, case-insensitive prefix
    market               paid tiers: one market code (Taster: its own market only)
    <nutrient>_min/_max  range per 100 g, nutrient one of catalogue.nutrients.HEADLINES
    sort                 relevance (default with q) | name (default without) | -name |
                         <nutrient> | -<nutrient>
    page, page_size      1-based page number; page size 1-100 (default 20)
    cursor               opaque position from links.next / links.prev
    variant_of           a food id: list that food's look-alikes (catalogue.search.variants)
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from catalogue.models import DataType
from catalogue.nutrients import BY_SLUG
from catalogue.search import text as search_text
from core.params import list_items
from core.problems import InvalidParameter

MAX_Q_LENGTH = 200
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
# Page numbers reach this many rows deep; further on, links.next (a keyset cursor)
# keeps every page as cheap as the first.
MAX_PAGE_OFFSET = 10_000
MAX_LIST_ITEMS = 20
MAX_TEXT_LENGTH = 200
# A cursor carries its search's parameters (issue 14.3), compressed.
MAX_CURSOR_LENGTH = 4000

_RANGE = re.compile(r"(?P<slug>[a-z_]+)_(?P<bound>min|max)")
_SLUG = re.compile(r"[a-z0-9-]{1,120}")
_MARKET = re.compile(r"[A-Za-z]{2}")
# Read once: ``DataType.values`` builds its list again at every call (every search).
_DATA_TYPES = tuple(DataType.values)
_FIXED = {
    "q", "data_type", "category", "brand", "market", "sort", "page", "page_size", "cursor",
    "variant_of",
}  # fmt: skip
_PUBLIC_ID = re.compile(r"[a-z0-9]{2,8}-[A-Za-z0-9]{1,32}")


@dataclass(frozen=True, slots=True)
class Range:
    """``low <= amount <= high`` per 100 g of a headline nutrient; a bound may be None."""

    slug: str
    low: float | None
    high: float | None


@dataclass(frozen=True, slots=True)
class Sort:
    key: str  # "relevance", "name" or a headline nutrient slug
    descending: bool

    @property
    def text(self) -> str:
        return f"-{self.key}" if self.descending else self.key


@dataclass(frozen=True, slots=True)
class FoodQuery:
    q: str
    data_types: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    brand: str = ""
    market: str = ""
    ranges: tuple[Range, ...] = ()
    sort: Sort = Sort("name", False)
    page: int | None = None
    page_size: int = DEFAULT_PAGE_SIZE
    cursor: str = ""
    variant_of: str = ""
    # Not a parameter: False once the search's last word proved too broad a prefix to
    # rank (catalogue.selectors, issue 36.1); a function of q and the catalogue, so
    # every page of one search decides it alike.
    prefix: bool = True

    @property
    def has_filters(self) -> bool:
        return bool(
            self.data_types or self.categories or self.brand or self.ranges or self.variant_of
        )

    def fingerprint(self) -> str:
        """Identifies the result list (everything but the position), so a cursor is only
        ever used with the search that issued it."""
        parts = (
            self.q,
            self.data_types,
            self.categories,
            self.brand,
            self.market,
            self.ranges,
            self.sort,
            self.page_size,
        ) + ((self.variant_of,) if self.variant_of else ())
        return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


LIST_PARAMETERS = ("data_type", "category")


def parse_food_query(params: Mapping[str, Sequence[str]]) -> FoodQuery:
    """``params`` maps each name to all its values (a ``QueryDict``'s ``lists()``)."""
    values: dict[str, str] = {}
    for name, given in params.items():
        if name not in _FIXED and not _is_range(name):
            raise InvalidParameter(name, "Unknown parameter.")
        if name in LIST_PARAMETERS:  # a comma list, or the name repeated (core/params.py)
            values[name] = ",".join(list_items(given))
            continue
        if len(given) != 1:
            raise InvalidParameter(name, "Give this parameter at most once.")
        values[name] = given[0]
    q = _q(values.get("q", ""))
    ranges = _ranges(values)
    sort = _sort(values.get("sort"), has_q=bool(q))
    page, page_size, cursor = paging_parameters(values)
    return FoodQuery(
        q=q,
        data_types=_choices(values, "data_type", _DATA_TYPES),
        categories=_slugs(values, "category"),
        brand=_text(values, "brand", MAX_TEXT_LENGTH).casefold(),
        market=_market(values.get("market")),
        ranges=ranges,
        sort=sort,
        page=page,
        page_size=page_size,
        cursor=cursor,
        variant_of=_variant_of(values.get("variant_of")),
    )


def _variant_of(raw: str | None) -> str:
    """A food id whose look-alikes to list (catalogue.search.variants), or ""."""
    if raw is None:
        return ""
    if not _PUBLIC_ID.fullmatch(raw):
        raise InvalidParameter("variant_of", "Give a food id, e.g. fdc-0123456789abcdef.")
    return raw


def _is_range(name: str) -> bool:
    match = _RANGE.fullmatch(name)
    return bool(match and match["slug"] in BY_SLUG)


def _q(raw: str) -> str:
    """The search text, cleaned (``catalogue.search.text.clean_query``: format characters out,
    white space folded, trimmed); blank means no search. Text that holds no letter or
    digit is refused: it names no food, and searching names for it literally scanned
    every row (230-486 ms on the full catalogue, issue 36.1). The limit holds for
    the text as typed and for what is searched: normalisation may lengthen it (NFKD
    turns U+3316 into six letters), so 200 characters could otherwise become a
    1,200-letter word (issue 24.1)."""
    if len(raw) > MAX_Q_LENGTH:
        raise InvalidParameter("q", f"At most {MAX_Q_LENGTH} characters.")
    if len(" ".join(search_text.words(raw))) > MAX_Q_LENGTH:
        raise InvalidParameter(
            "q", f"At most {MAX_Q_LENGTH} characters once normalised (accents and "
            "compatibility characters such as ㌖ are spelled out)."
        )  # fmt: skip
    q = search_text.clean_query(raw)
    if raw.strip() and not search_text.words(q):
        raise InvalidParameter("q", "Give at least one letter or digit.")
    return q


def _text(values: dict[str, str], name: str, limit: int) -> str:
    raw = values.get(name, "").strip()
    if len(raw) > limit:
        raise InvalidParameter(name, f"At most {limit} characters.")
    if any(ord(ch) < 32 for ch in raw):
        raise InvalidParameter(name, "Control characters are not allowed.")
    return raw


def _int(values: dict[str, str], name: str, low: int, high: int | None) -> int | None:
    raw = values.get(name)
    if raw is None:
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 9:
        raise InvalidParameter(name, "Must be a whole number.")
    number = int(raw)
    if number < low or (high is not None and number > high):
        bound = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise InvalidParameter(name, f"Must be {bound}.")
    return number


def _number(name: str, raw: str) -> float:
    try:
        number = float(raw)
    except ValueError:
        raise InvalidParameter(name, "Must be a number.") from None
    if not math.isfinite(number):
        raise InvalidParameter(name, "Must be a finite number.")
    return number


def _ranges(values: dict[str, str]) -> tuple[Range, ...]:
    bounds: dict[str, dict[str, float]] = {}
    for name, raw in values.items():
        match = _RANGE.fullmatch(name)
        if match and match["slug"] in BY_SLUG:
            bounds.setdefault(match["slug"], {})[match["bound"]] = _number(name, raw.strip())
    out = []
    for slug, pair in sorted(bounds.items()):
        low, high = pair.get("min"), pair.get("max")
        if low is not None and high is not None and low > high:
            raise InvalidParameter(f"{slug}_min", f"Greater than {slug}_max.")
        out.append(Range(slug, low, high))
    return tuple(out)


def _sort(raw: str | None, *, has_q: bool) -> Sort:
    if raw is None or raw.strip() == "":
        return Sort("relevance" if has_q else "name", False)
    descending = raw.startswith("-")
    key = raw[1:] if descending else raw
    if key == "relevance":
        if descending:
            raise InvalidParameter("sort", "relevance sorts best match first only.")
        if not has_q:
            raise InvalidParameter("sort", "Sorting by relevance needs q.")
    elif key != "name" and key not in BY_SLUG:
        names = ", ".join(["relevance", "name", *BY_SLUG])
        raise InvalidParameter("sort", f"Unknown sort; one of {names} (prefix - to reverse).")
    return Sort(key, descending)


def _items(values: dict[str, str], name: str) -> list[str]:
    raw = _text(values, name, 2000)
    items = [item.strip() for item in raw.split(",") if item.strip()]
    if len(items) > MAX_LIST_ITEMS:
        raise InvalidParameter(name, f"At most {MAX_LIST_ITEMS} values.")
    return items


def _choices(values: dict[str, str], name: str, allowed: Sequence[str]) -> tuple[str, ...]:
    items = _items(values, name)
    for item in items:
        if item not in allowed:
            raise InvalidParameter(name, f"Unknown value {item!r}; one of {', '.join(allowed)}.")
    return tuple(sorted(set(items)))


def _slugs(values: dict[str, str], name: str) -> tuple[str, ...]:
    items = _items(values, name)
    for item in items:
        if not _SLUG.fullmatch(item):
            raise InvalidParameter(name, f"{item!r} is not a category id.")
    return tuple(sorted(set(items)))


def _market(raw: str | None) -> str:
    return market_parameter(raw)


def market_parameter(raw: str | None) -> str:
    """The ``market`` query parameter as a code (``in`` -> ``IN``), "" when absent, or
    ``InvalidParameter`` naming it: the one reading of it for every endpoint that takes
    it (``GET /v1/foods``, ``POST /v1/analysis``, issue 38.5)."""
    if raw is None:
        return ""
    if not _MARKET.fullmatch(raw.strip()):
        raise InvalidParameter("market", "A two-letter market code, e.g. US.")
    return raw.strip().upper()


def paging_parameters(values: Mapping[str, str]) -> tuple[int | None, int, str]:
    """``page``, ``page_size`` (default ``DEFAULT_PAGE_SIZE``) and ``cursor`` of
    ``values`` (one value a name): how ``GET /v1/foods`` and the reference lists
    (catalogue.reference_lists) read them; ``InvalidParameter`` naming the one at fault."""
    given = dict(values)
    page, page_size = _int(given, "page", 1, None), _int(given, "page_size", 1, MAX_PAGE_SIZE)
    page_size = page_size or DEFAULT_PAGE_SIZE
    if page is not None and (page - 1) * page_size >= MAX_PAGE_OFFSET:
        raise InvalidParameter(
            "page", f"Page numbers reach {MAX_PAGE_OFFSET:,} rows deep; follow links.next."
        )
    cursor = _text(given, "cursor", MAX_CURSOR_LENGTH)
    if cursor and page is not None:
        raise InvalidParameter("cursor", "Give either page or cursor, not both.")
    return page, page_size, cursor
