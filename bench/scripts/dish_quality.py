"""Search quality on dishes people log (issue 39, point 5), and empty first pages.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fs_full \\
        .venv/bin/python bench/scripts/dish_quality.py   # prints every miss and the rates
    .venv/bin/python bench/scripts/dish_quality.py --write   # and its bench/RESULTS.md section

The set is tests/support/judged/dish_set.py (market US: FNDDS / SR28 dishes, drinks and
snacks; market IN: on IFCT names), each query scored on its first row by
tests/support/judged/search_scoring.py (``evaluate_dishes``: ``food_search``, page 1, as
the API does) against the database of DATABASE_URL, target >= 95 % in each market. Then
every query of every judged search set (search_set.py and dish_set.py) is checked for an
empty first page (the target: none). tests/catalogue/search/test_dish_set.py runs the
scorer on factory rows with real names in CI.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
os.environ.setdefault("METERING_ENABLED", "0")
django.setup()

from bench.kits.loadkit import write_section  # noqa: E402
from catalogue.models import Food  # noqa: E402
from tests.support.judged.search_scoring import (  # noqa: E402
    DISH_KINDS,
    DISHES,
    Outcome,
    empty,
    evaluate,
    evaluate_dishes,
    rates,
    report,
)

WHAT = {
    "dish_us": "dishes, drinks and snacks as logged, market US: the reference dish first",
    "dish_in": "dishes, drinks and snacks as logged, market IN: the IFCT food first",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="summary into bench/RESULTS.md")
    args = parser.parse_args()
    dishes = evaluate_dishes()
    print("\n".join(report(dishes, DISH_KINDS)))
    others = evaluate()
    empties = empty(dishes + others)
    for o in empties:
        print(f"EMPTY {o.kind} {o.query!r}")
    print(f"empty first pages: {len(empties)} of {len(dishes) + len(others)} judged queries")
    if args.write:
        write_results(dishes, others, empties, Food.objects.count())


def write_results(
    dishes: list[Outcome], others: list[Outcome], empties: list[Outcome], foods: int
) -> None:
    """Replaces (or adds) the section "Dishes people log (judged set)" of bench/RESULTS.md,
    leaving every other section as it is. ``others``: the earlier judged sets
    (search_quality.py's), whose rates this run are listed too (no worse, issue 39)."""
    misses = [o for o in dishes if not o.hit]
    judged = len(dishes) + len(others)
    earlier = ", ".join(
        f"{kind} {hits}/{total}" for kind, (hits, total) in rates(others).items() if total
    )
    rows = [
        f"| {total} {WHAT[kind]} | >= {DISHES[kind][2]:.0%} | {hits}/{total} = {hits / total:.1%} |"
        for kind, (hits, total) in rates(dishes, DISH_KINDS).items()
        if total
    ]
    section = [
        f"Run {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by `bench/scripts/dish_quality.py` on "
        f"{foods:,} foods (SR28 + the full FDC table + IFCT). The set: "
        "tests/support/judged/dish_set.py (issue 39, point 5).",
        "",
        "| queries | target | result |",
        "|---|---|---|",
        *rows,
        f"| {judged} queries of every judged search set: an empty first page | none | "
        f"{len(empties)} |",
        "",
        f"The earlier judged sets in the same run (bench/scripts/search_quality.py): {earlier}.",
        "",
        "Misses:" if misses else "No misses.",
        "",
        *(
            f"- {o.kind} `{o.query}`: wanted `/{o.pattern}/`, top: "
            + "; ".join(f"{name} ({data_type})" for data_type, name in o.shown)
            for o in misses
        ),
        *([""] + [f"- empty: {o.kind} `{o.query}`" for o in empties] if empties else []),
    ]
    write_section("## Dishes people log (judged set)", "\n".join(section))


if __name__ == "__main__":
    main()
