"""The reference lists (issue 42.5): ``GET /v1/nutrients`` and ``GET /v1/categories``,
the vocabulary a client builds pickers and filters from (docs/catalogue.md, "Nutrients
and categories").

Paged like ``GET /v1/foods`` (catalogue.search.paging): ``page``/``page_size`` (1-100,
default 20) near the top, a signed keyset cursor in ``links.next`` that carries the
list it belongs to, so ``?cursor=...`` alone reads the same page; the same
``{"data", "links", "meta"}`` envelope. Each item is the body of the record by id
(``serializers.nutrient_record``, ``category_record``), so a picker needs no second read.

Orders are total and stable: nutrients in USDA's display order (``rank``, then id: the
order of a food record's ``nutrients``), categories by id (their slug, made from the
name: alphabetical). Categories belong to markets through their foods: ``market``
narrows the list to those holding foods of that market (the caller's market on
Taster, as every foods read; catalogue.policies); nutrients are one table for both
markets (USDA's and IFCT's own), so their list takes no ``market``.

Contracts: pure reads; every malformed, unknown or repeated parameter, a tampered or
foreign cursor and a page past the end are ``InvalidParameter`` naming it, before or
instead of any row read beyond the page's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.db.models import Exists, OuterRef, Q, QuerySet

from catalogue.delivery import serializers
from catalogue.delivery.conditional import etag_of_bytes
from catalogue.delivery.rendering import dumps
from catalogue.models import Category, Food, Nutrient
from catalogue.search.paging import Position, cursor_dumps, position_for, with_cursor_search
from catalogue.search.params import MAX_PAGE_OFFSET, market_parameter, paging_parameters
from core.problems import InvalidParameter

NUTRIENTS = "nutrients"
CATEGORIES = "categories"
# What each list takes besides the paging parameters, and how it is ordered.
_FILTERS = {NUTRIENTS: (), CATEGORIES: ("market",)}
_ORDER = {NUTRIENTS: ("rank", "id"), CATEGORIES: ("slug",)}
_PAGING = ("page", "page_size", "cursor")


@dataclass(frozen=True, slots=True)
class ListQuery:
    """A reference list's page as asked: ``market`` is the parameter as given ("" when
    absent; categories only), ``given`` the parameters (a cursor's list completed)."""

    kind: str
    page: int | None
    page_size: int
    cursor: str
    market: str
    given: dict[str, list[str]]

    def fingerprint(self) -> str:
        """Identifies the list (everything but the position): a cursor is only ever
        used with the list that issued it."""
        parts = (self.kind, self.market, self.page_size)
        return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def list_query_parse(*, kind: str, params: Mapping[str, Sequence[str]]) -> ListQuery:
    """``params`` (a ``QueryDict``'s ``lists()``) as a ``ListQuery`` of ``kind``;
    ``InvalidParameter`` for an unknown or repeated parameter, a bad page, page size,
    cursor or market."""
    given = with_cursor_search(params)
    values: dict[str, str] = {}
    for name, items in given.items():
        if name not in _PAGING and name not in _FILTERS[kind]:
            raise InvalidParameter(name, "Unknown parameter.")
        if len(items) != 1:
            raise InvalidParameter(name, "Give this parameter at most once.")
        values[name] = items[0]
    page, page_size, cursor = paging_parameters(values)
    market = market_parameter(values.get("market"))
    return ListQuery(kind, page, page_size, cursor, market, given)


def list_body(*, query: ListQuery, path: str, market: str | None) -> tuple[bytes, str]:
    """The body and ETag of ``query``'s page: ``path`` is the request as made (its
    ``links.self``), ``market`` the market the categories are of (None: every one).
    ``InvalidParameter`` naming ``page`` or ``cursor`` for a page past the end."""
    fingerprint = query.fingerprint()
    position = position_for(
        page=query.page, cursor=query.cursor, page_size=query.page_size, fingerprint=fingerprint
    )
    if query.kind == NUTRIENTS:
        rows, serialize = Nutrient.objects.all(), serializers.nutrient_record
    else:
        rows, serialize = categories_of(market=market), serializers.category_record
    page, total, following = _page(rows, _ORDER[query.kind], position, query.page_size)
    if not page and position.offset > 0:
        raise InvalidParameter("cursor" if query.cursor else "page", "Past the end of the list.")
    meta: dict[str, Any] = {"market": market} if query.kind == CATEGORIES else {}
    meta |= {
        "offset": position.offset,
        "page_size": query.page_size,
        "count": len(page),
        "total": total,
    }
    body = dumps(
        {
            "data": [serialize(row) for row in page],
            "links": _links(query, path, position, following, fingerprint),
            "meta": meta,
        }
    )
    return body, etag_of_bytes(body)


def categories_of(*, market: str | None) -> QuerySet[Category]:
    """The categories holding foods of ``market``; every category for None. One
    indexed probe a category (``catalogue_food``'s category index, stopping at the
    first food of the market): 13 ms for market US's 576 of 596 on the full catalogue,
    where grouping the foods by category and market read all 400k rows (410 ms)."""
    if market is None:
        return Category.objects.all()
    return Category.objects.filter(
        Exists(Food.objects.filter(category=OuterRef("pk"), market_id=market))
    )


def _page(
    rows: QuerySet[Any], order: tuple[str, ...], position: Position, size: int
) -> tuple[list[Any], int, Position | None]:
    """The page of ``rows`` in ``order`` at ``position``: its rows, how many ``rows``
    there are, and where the next page starts (None on the last). Seeks past
    ``position.key`` when known, else skips ``position.offset`` rows."""
    total = rows.count()
    ordered = rows.order_by(*order)
    if position.key is not None:
        if len(position.key) != len(order):
            raise InvalidParameter("cursor", "Not a cursor of this list.")
        ordered = ordered.filter(_after(order, position.key))
        found = list(ordered[: size + 1])
    else:
        found = list(ordered[position.offset : position.offset + size + 1])
    page = found[:size]
    following = None
    if len(found) > size:
        last = page[-1]
        following = Position(position.offset + size, tuple(getattr(last, f) for f in order))
    return page, total, following


def _after(order: tuple[str, ...], key: tuple[Any, ...]) -> Q:
    """Rows after ``key`` in ``order`` (ascending on every field): the keyset seek."""
    condition = Q(**{f"{order[-1]}__gt": key[-1]})
    for name, value in zip(reversed(order[:-1]), reversed(key[:-1]), strict=True):
        condition = Q(**{f"{name}__gt": value}) | (Q(**{name: value}) & condition)
    return condition


def _links(
    query: ListQuery,
    path: str,
    position: Position,
    following: Position | None,
    fingerprint: str,
) -> dict[str, str | None]:
    """``self`` the request as made; ``next`` a cursor (null on the last page); ``prev``
    a page number near the top (null on the first page), as ``GET /v1/foods`` links."""
    base = f"/v1/{query.kind}"
    params = [(k, v[-1]) for k, v in query.given.items() if k not in ("page", "cursor")]

    def at(where: Position) -> str:
        number = where.offset // query.page_size + 1
        near_top = where.offset % query.page_size == 0 and where.offset < MAX_PAGE_OFFSET
        if where.key is None and near_top:
            extra = [("page", str(number))] if number > 1 else []
            return f"{base}?{urlencode(params + extra)}".rstrip("?")
        token = cursor_dumps(where, fingerprint=fingerprint, search=params)
        return f"{base}?{urlencode([*params, ('cursor', token)])}"

    first = position.offset == 0
    return {
        "self": path,
        "next": at(following) if following else None,
        "prev": None if first else at(Position(max(0, position.offset - query.page_size))),
    }
