"""A synthetic FoodData Central release in the official layout, for timing the release
load only (issue 42.1): every file the loader reads, with the real headers, and rows
whose shapes follow the real release's: ~2.06 million foods (food.csv of a 2025
release), 96 % of them branded, ~13 nutrient rows a food (food_nutrient.csv, ~26
million rows), a few portions per non-branded food. Names, amounts and codes are
made up ("SYNTHETIC FOOD 000123"): never load it into a catalogue people use.

``--scale 0.05`` (the default) writes a twentieth of that. food_nutrient.csv is written
in a shuffled order of foods, so the loader's any-order join is what is timed.

    .venv/bin/python bench/scripts/make_fdc_release.py var/fdc-release-synthetic --scale 0.05
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from catalogue.gtin import check_digit
from tests.support.fdc_release import FILES

FOODS = 2_060_000
BRANDED = 0.96
NUTRIENTS_PER_FOOD = 13
PORTIONS_PER_FOOD = 4  # of the non-branded foods
NUTRIENTS = [1003, 1004, 1005, 1008, 1079, 2000, 1093, 1087, 1089, 1092, 1258, 1253, 1104, 1162]
OTHER_TYPES = ("foundation_food", "sr_legacy_food", "survey_fndds_food")


def write(folder: Path, *, scale: float, seed: int = 42) -> dict[str, int]:
    """Writes the release into ``folder``; returns the rows written per file."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    foods = max(10, int(FOODS * scale))
    ids = list(range(1_000_000, 1_000_000 + foods))
    branded = set(rng.sample(ids, int(foods * BRANDED)))
    counts = {}
    with _writer(folder, "food.csv") as out:
        for fdc_id in ids:
            kind = "branded_food" if fdc_id in branded else rng.choice(OTHER_TYPES)
            category = "" if kind == "branded_food" else str(rng.randint(1, 25))
            out.writerow([fdc_id, kind, f"SYNTHETIC FOOD {fdc_id}", category, "2024-10-31"])
        counts["food.csv"] = foods
    with _writer(folder, "branded_food.csv") as out:
        for fdc_id in sorted(branded):
            body = f"{fdc_id:011d}"
            code = body + str(check_digit(body))
            out.writerow(
                [fdc_id, "SYNTHETIC OWNER", "SYNTHETIC", "", code, "WATER, SUGAR, SALT.", "",
                 "30", "g", "1 serving", "Synthetic Snacks", "GDSN", "", "2024-01-01",
                 "2024-10-31", "United States", "", "", "", "", ""]
            )  # fmt: skip
        counts["branded_food.csv"] = len(branded)
    shuffled = ids[:]
    rng.shuffle(shuffled)
    rows = 0
    with _writer(folder, "food_nutrient.csv") as out:
        for fdc_id in shuffled:
            for nutrient in rng.sample(NUTRIENTS, NUTRIENTS_PER_FOOD):
                rows += 1
                amount = f"{rng.uniform(0, 100):.2f}"
                out.writerow([rows, fdc_id, nutrient, amount, "", "70", *[""] * 7])
        counts["food_nutrient.csv"] = rows
    rows = 0
    with _writer(folder, "food_portion.csv") as out:
        for fdc_id in ids:
            if fdc_id in branded:
                continue
            for seq in range(1, PORTIONS_PER_FOOD + 1):
                rows += 1
                out.writerow(
                    [rows, fdc_id, seq, "1.0", "1000", "", "", f"{seq * 30}.0", "", "", ""]
                )
        counts["food_portion.csv"] = rows
    _small_tables(folder)
    return counts


@contextmanager
def _writer(folder: Path, name: str) -> Iterator[Any]:
    """The CSV writer of ``name`` in ``folder``, its real header written, every field
    quoted as USDA writes them."""
    with (folder / name).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL)
        writer.writerow(FILES[name][0])
        yield writer


def _small_tables(folder: Path) -> None:
    milligrams = {1093, 1087, 1089, 1092, 1253, 1104, 1162}
    categories = range(1, 26)
    tables = {
        "measure_unit.csv": [["1000", "cup"], ["1001", "tablespoon"], ["9999", "undetermined"]],
        "food_category.csv": [[str(i), f"{i:02d}00", f"Synthetic group {i}"] for i in categories],
        "wweia_food_category.csv": [[str(i), f"Synthetic WWEIA {i}"] for i in categories],
        "nutrient.csv": [
            [str(n), f"Nutrient {n}", "MG" if n in milligrams else "G", "", "1"] for n in NUTRIENTS
        ],
    }  # fmt: skip
    for name, rows in tables.items():
        with _writer(folder, name) as out:
            out.writerows(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--scale", type=float, default=0.05)
    args = parser.parse_args()
    counts = write(args.folder, scale=args.scale)
    size = sum(p.stat().st_size for p in args.folder.glob("*.csv"))
    print(", ".join(f"{name} {rows:,}" for name, rows in counts.items()), f"; {size / 1e6:,.0f} MB")


if __name__ == "__main__":
    main()
