"""Only the fields asked for (issue 42.4): ``fields=`` and ``nutrients=`` on a food
record, a search page's rows and a batch's records. Pure: no request, no database.

Grammar (docs/api-guide.md, "Only the fields you use"):

- ``fields`` is a comma list of a record's top-level names (``name``, ``portions``) and
  dotted sub-fields, one level deep (``nutrients_per_100g.protein_g``, ``category.id``;
  on a list of objects, ``nutrients.amount_per_100g`` keeps that key of each element).
  ``id`` is always kept, so the records of a batch can be told apart. A name the shape
  does not have is ``InvalidParameter`` listing the valid ones.
- ``nutrients`` is a comma list of nutrient ids (the USDA numbers of the record's
  ``nutrients`` list and of ``/v1/nutrients/{id}``: ``203,204``) and headline keys (the
  keys of ``nutrients_per_100g``: ``protein_g``); it keeps only those entries of
  ``nutrients`` and of the headline objects (``nutrients_per_100g``,
  ``nutrients_per_serving``), a headline key and its nutrient's id alike (``protein_g``
  is 203). An id the food has no amount for is simply absent.

No projection asked (``Projection.none``) leaves the stored bytes untouched: the
unprojected path never parses them (catalogue/delivery/rendering.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from catalogue.delivery.rendering import dumps
from catalogue.nutrients import HEADLINES
from core.params import list_items
from core.problems import InvalidParameter

PARAMETERS = ("fields", "nutrients")
MAX_ITEMS = 100
HEADLINE_OBJECTS = ("nutrients_per_100g", "nutrients_per_serving")
_BY_KEY = {h.column: h.nutrient_id for h in HEADLINES}  # energy_kcal: 208
_HEADLINE_KEYS = frozenset(_BY_KEY)
_NUTRIENT_ID = re.compile(r"[0-9]{1,6}")
# A search page's row (serializers.food_summary): each top-level name, and the sub-field
# names it takes (None: any, the object's keys vary by food).
SUMMARY_FIELDS: dict[str, frozenset[str] | None] = {
    "id": frozenset(),
    "name": frozenset(),
    "data_type": frozenset(),
    "category": frozenset({"id", "name"}),
    "brand_owner": frozenset(),
    "market": frozenset(),
    "source": frozenset({"name", "id", "title", "publisher", "release", "licence", "url"}),
    "serving": frozenset({"description", "gram_weight"}),
    "nutrients_per_100g": _HEADLINE_KEYS,
    "nutrients_per_serving": _HEADLINE_KEYS,
    "variants": frozenset({"count", "list"}),
    "links": frozenset({"self"}),
}
# A record (serializers.food_detail): the summary's and these.
RECORD_FIELDS: dict[str, frozenset[str] | None] = SUMMARY_FIELDS | {
    "local_names": None,
    "daily_values": None,
    "label": None,
    "portions": None,
    "nutrients": frozenset(
        {"id", "number", "name", "unit", "amount_per_100g", "amount_per_serving", "sd_per_100g"}
    ),
}


@dataclass(frozen=True, slots=True)
class Projection:
    """What to keep: ``fields`` maps a top-level name to its kept sub-fields (None: the
    whole value); None keeps every field. ``ids`` and ``headlines``: the nutrients to
    keep (None: all)."""

    fields: Mapping[str, frozenset[str] | None] | None = None
    ids: frozenset[int] | None = None
    headlines: frozenset[str] | None = None

    @property
    def none(self) -> bool:
        return self.fields is None and self.ids is None and self.headlines is None

    def key(self) -> str:
        """A canonical text of the projection: equal projections, equal keys (the ETag
        of a batch and the memory keys are made from it)."""
        if self.none:
            return ""
        fields = (
            "*"
            if self.fields is None
            else ",".join(
                name if sub is None else ",".join(f"{name}.{s}" for s in sorted(sub))
                for name, sub in sorted(self.fields.items())
            )
        )
        ids = "*" if self.ids is None else ",".join(map(str, sorted(self.ids)))
        heads = "*" if self.headlines is None else ",".join(sorted(self.headlines))
        return f"fields={fields};nutrients={ids}/{heads}"

    def apply(self, data: dict[str, Any]) -> dict[str, Any]:
        """``data`` (a record's or a row's object) with only what is asked for."""
        if self.fields is not None:
            kept: dict[str, Any] = {}
            for name, value in data.items():
                if name not in self.fields and name != "id":
                    continue
                sub = self.fields.get(name)
                kept[name] = value if sub is None else _pick(value, sub)
            data = kept
        if self.ids is not None and isinstance(data.get("nutrients"), list):
            data["nutrients"] = [n for n in data["nutrients"] if n.get("id") in self.ids]
        if self.headlines is not None:
            for name in HEADLINE_OBJECTS:
                if isinstance(data.get(name), dict):
                    data[name] = {k: v for k, v in data[name].items() if k in self.headlines}
        return data

    def bytes_of(self, body: bytes, *, wrapped: bool) -> bytes:
        """The stored bytes of one record (``wrapped``: ``{"data": {...}}``) or one row,
        projected (parsed and encoded again: only when a projection is asked)."""
        value = orjson.loads(body)
        if wrapped:
            return dumps({"data": self.apply(value["data"])})
        return dumps(self.apply(value))


NO_PROJECTION = Projection()


def _pick(value: Any, sub: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k in sub}
    if isinstance(value, list):
        return [_pick(item, sub) if isinstance(item, dict) else item for item in value]
    return value


def parse_projection(
    params: Mapping[str, Sequence[str]], *, shape: Mapping[str, frozenset[str] | None]
) -> Projection:
    """The projection ``fields`` and ``nutrients`` in ``params`` ask for on ``shape``
    (``RECORD_FIELDS`` or ``SUMMARY_FIELDS``); ``NO_PROJECTION`` when neither is given.
    ``InvalidParameter`` naming the parameter for a name the shape lacks (listing the
    valid ones), a repeated parameter, an empty list or more than ``MAX_ITEMS`` items."""
    fields = None
    if "fields" in params:
        fields = _fields(_items(params, "fields"), shape)
    ids = headlines = None
    if "nutrients" in params:
        ids, headlines = _nutrients(_items(params, "nutrients"))
    return Projection(fields=fields, ids=ids, headlines=headlines)


def _items(params: Mapping[str, Sequence[str]], name: str) -> list[str]:
    items = list_items(params[name])  # a comma list, or the name repeated
    if not items:
        raise InvalidParameter(name, "Give at least one name.")
    if len(items) > MAX_ITEMS:
        raise InvalidParameter(name, f"At most {MAX_ITEMS} names.")
    return items


def _fields(
    items: list[str], shape: Mapping[str, frozenset[str] | None]
) -> dict[str, frozenset[str] | None]:
    wanted: dict[str, set[str] | None] = {}
    for item in items:
        name, dot, sub = item.partition(".")
        if name not in shape:
            raise InvalidParameter(
                "fields", f"Unknown field {item!r}; valid fields: {', '.join(shape)}."
            )
        if not dot:
            wanted[name] = None
            continue
        known = shape[name]
        if not sub or "." in sub or (known is not None and sub not in known):
            valid = "any key of it" if known is None else ", ".join(sorted(known)) or "none"
            raise InvalidParameter(
                "fields", f"Unknown field {item!r}; sub-fields of {name}: {valid}."
            )
        if name not in wanted:
            wanted[name] = set()
        if wanted[name] is not None:
            wanted[name].add(sub)  # type: ignore[union-attr]
    return {name: None if sub is None else frozenset(sub) for name, sub in wanted.items()}


def _nutrients(items: list[str]) -> tuple[frozenset[int], frozenset[str]]:
    ids: set[int] = set()
    headlines: set[str] = set()
    for item in items:
        if _NUTRIENT_ID.fullmatch(item):
            ids.add(int(item))
        elif item in _HEADLINE_KEYS:
            headlines.add(item)
        else:
            raise InvalidParameter(
                "nutrients",
                f"Unknown nutrient {item!r}: give nutrient ids (USDA numbers, 203) or "
                f"headline keys: {', '.join(_BY_KEY)}.",
            )
    # One nutrient however named: a headline key keeps its entry of the list, an id its
    # headline key.
    ids |= {_BY_KEY[key] for key in headlines}
    headlines |= {key for key, number in _BY_KEY.items() if number in ids}
    return frozenset(ids), frozenset(headlines)
