"""Search quality on the judged query set (bench/judged_set.py; issue 12, point 4).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fs_full \\
        .venv/bin/python bench/search_quality.py          # prints every miss and the rates
    .venv/bin/python bench/search_quality.py --write      # also the summary in bench/RESULTS.md

Runs each query through ``catalogue.selectors.food_search`` (market US, page 1, as the
API does, typo fallback included) against the database of DATABASE_URL. Targets (full
catalogue): a whole food in the top 3 for >= 95% of the staples, the meant food in the
top 5 for >= 90% of the misspellings; judged on the FIRST row (issue 27): the typical
food for >= 95% of ``FIRST``, 80% of ``REGIONAL`` names, 85% of ``LONG`` queries and
95% of ``INDIAN`` ones (market IN). tests/catalogue/test_judged_set.py runs the same
``evaluate`` on a small file of real SR28 + FDC rows in CI.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.judged_set import (  # noqa: E402
    FIRST,
    INDIAN,
    LONG,
    LONG_HELD_OUT,
    MISSPELLINGS,
    MISSPELLINGS_MORE,
    REGIONAL,
    STAPLES,
)

REFERENCE = {"foundation", "sr_legacy", "survey"}
STAPLE_TARGET, MISSPELLING_TARGET = 0.95, 0.90
MISSPELLINGS = MISSPELLINGS + MISSPELLINGS_MORE
# Judged on the first row (issue 27): kind -> (queries, market, reference only, target).
FIRST_ROW = {
    "first": (FIRST, "US", True, 0.95),
    "regional": (REGIONAL, "US", True, 0.80),
    "long": (LONG, "US", True, 0.85),
    "long_held_out": (LONG_HELD_OUT, "US", True, 0.85),
    "indian": (INDIAN, "IN", False, 0.95),
}
KINDS = ("staple", "misspelling", *FIRST_ROW)
TARGETS = {"staple": STAPLE_TARGET, "misspelling": MISSPELLING_TARGET} | {
    kind: spec[3] for kind, spec in FIRST_ROW.items()
}


@dataclass(frozen=True, slots=True)
class Outcome:
    kind: str  # one of KINDS
    query: str
    pattern: str
    hit: bool
    shown: list[tuple[str, str]]  # (data_type, name) of the rows judged
    corrected_q: str | None


def top(q: str, count: int, market: str = "US") -> tuple[list[dict[str, Any]], str | None]:
    from catalogue import selectors
    from catalogue.paging import Position
    from catalogue.params import parse_food_query

    query = parse_food_query({"q": [q]})
    page = selectors.food_search(query=query, market=market, depth=1000, position=Position(0))
    # A page's rows carry each food's summary as served (issue 13: pre-rendered bytes).
    return [json.loads(row["summary"]) for row in page.rows[:count]], page.corrected_q


def evaluate() -> list[Outcome]:
    """Every judged query's outcome, staples first."""
    outcomes = []
    for q, pattern in STAPLES:
        rows, corrected = top(q, 3)
        wanted = re.compile(pattern, re.I)
        hit = any(r["data_type"] in REFERENCE and wanted.match(r["name"]) for r in rows)
        shown = [(r["data_type"], r["name"]) for r in rows]
        outcomes.append(Outcome("staple", q, pattern, hit, shown, corrected))
    for q, pattern in MISSPELLINGS:
        rows, corrected = top(q, 5)
        wanted = re.compile(pattern, re.I)
        hit = any(wanted.search(r["name"]) for r in rows)
        shown = [(r["data_type"], r["name"]) for r in rows]
        outcomes.append(Outcome("misspelling", q, pattern, hit, shown, corrected))
    for kind, (queries, market, reference, _) in FIRST_ROW.items():
        for q, pattern in queries:
            rows, corrected = top(q, 3, market)
            wanted = re.compile(pattern, re.I)
            first = rows[0] if rows else None
            hit = first is not None and bool(wanted.match(first["name"]))
            hit = hit and (not reference or first["data_type"] in REFERENCE)
            shown = [(r["data_type"], r["name"]) for r in rows]
            outcomes.append(Outcome(kind, q, pattern, hit, shown, corrected))
    return outcomes


def rates(outcomes: list[Outcome]) -> dict[str, tuple[int, int]]:
    """kind -> (hits, queries)."""
    out: dict[str, tuple[int, int]] = {}
    for kind in KINDS:
        of_kind = [o for o in outcomes if o.kind == kind]
        out[kind] = (sum(o.hit for o in of_kind), len(of_kind))
    return out


def report(outcomes: list[Outcome]) -> list[str]:
    lines = []
    for o in outcomes:
        if o.hit:
            continue
        corrected = f" (searched as {o.corrected_q!r})" if o.corrected_q else ""
        lines.append(f"MISS {o.kind} {o.query!r}{corrected}: wanted /{o.pattern}/, got")
        lines += [f"    {data_type:12} {name}" for data_type, name in o.shown] or ["    nothing"]
    for kind, (hits, total) in rates(outcomes).items():
        if total:
            lines.append(f"{kind}s: {hits}/{total} = {hits / total:.1%}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="summary into bench/RESULTS.md")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
    os.environ.setdefault("METERING_ENABLED", "0")
    import django

    django.setup()
    from catalogue.models import Food

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
        f"Run {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by `bench/search_quality.py` on "
        f"{foods:,} foods (SR28 + the full FDC table + IFCT). The set: bench/judged_set.py.",
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
