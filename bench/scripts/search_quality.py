"""Search quality on the judged query set (issue 12, point 4; issue 27).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fs_full \\
        .venv/bin/python bench/scripts/search_quality.py   # prints every miss and the rates
    .venv/bin/python bench/scripts/search_quality.py --write   # and its bench/RESULTS.md section

The set is tests/support/judged/search_set.py; every query is scored by
tests/support/judged/search_scoring.py (``food_search``, page 1, as the API does, typo
fallback included) against the database of DATABASE_URL, with that module's targets.
tests/catalogue/search/test_judged_set.py runs the same ``evaluate`` on a small file of real
SR28 + FDC rows in CI.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import sys
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
os.environ.setdefault("METERING_ENABLED", "0")
django.setup()

from catalogue.models import Food  # noqa: E402
from tests.support.judged.search_scoring import (  # noqa: E402
    TARGETS,
    Outcome,
    evaluate,
    rates,
    report,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="summary into bench/RESULTS.md")
    args = parser.parse_args()
    outcomes = evaluate()
    lines = report(outcomes)
    print("\n".join(lines))
    if args.write:
        write_results(outcomes, Food.objects.count())


WHAT = {
    "staple": "staples: a whole food (foundation, SR Legacy / SR28, survey) in the top 3",
    "misspelling": "misspellings: the meant food in the top 5",
    "first": "staples judged on the first row: the typical reference food first",
    "regional": "regional names and synonyms (UK, AU, IN, US): the food first",
    "long": "queries of three or more words: the food first",
    "long_held_out": "held-out queries of three or more words (written before the relaxing "
    "rule ran on them): the food first",
    "indian": "Indian queries (market IN, local and English names): the food first",
}


def write_results(outcomes: list[Outcome], foods: int) -> None:
    misses = [o for o in outcomes if not o.hit]
    rows = [
        f"| {total} {WHAT[kind]} | >= {TARGETS[kind]:.0%} | {hits}/{total} = {hits / total:.1%} |"
        for kind, (hits, total) in rates(outcomes).items()
        if total
    ]
    section = [
        "## Search quality (judged set)",
        "",
        f"Run {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by `bench/scripts/search_quality.py` on "
        f"{foods:,} foods (SR28 + the full FDC table + IFCT). The set: "
        "tests/support/judged/search_set.py.",
        "",
        "| queries | target | result |",
        "|---|---|---|",
        *rows,
        "",
        "Misses:" if misses else "No misses.",
        "",
        *(
            f"- {o.kind} `{o.query}`: wanted `/{o.pattern}/`, top: "
            + "; ".join(f"{name} ({data_type})" for data_type, name in o.shown)
            for o in misses
        ),
    ]
    path = ROOT / "bench" / "RESULTS.md"
    text = path.read_text()
    body = "\n".join(section).rstrip() + "\n"
    pattern = re.compile(r"## Search quality \(judged set\)\n.*?(?=\n## |\Z)", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: body, text)
    else:
        text = text.rstrip() + "\n\n" + body
    path.write_text(text)


if __name__ == "__main__":
    main()
