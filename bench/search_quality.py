"""Search quality on the judged query set (bench/judged_set.py; issue 12, point 4).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fs_full \\
        .venv/bin/python bench/search_quality.py          # prints every miss and the rates
    .venv/bin/python bench/search_quality.py --write      # also the summary in bench/RESULTS.md

Runs each query through ``catalogue.selectors.food_search`` (market US, page 1, as the
API does, typo fallback included) against the database of DATABASE_URL. Targets (full
catalogue): a whole food in the top 3 for >= 95% of the staples, the meant food in the
top 5 for >= 90% of the misspellings. tests/catalogue/test_judged_set.py runs the same
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

from bench.judged_set import MISSPELLINGS, STAPLES  # noqa: E402

REFERENCE = {"foundation", "sr_legacy", "survey"}
STAPLE_TARGET, MISSPELLING_TARGET = 0.95, 0.90


@dataclass(frozen=True, slots=True)
class Outcome:
    kind: str  # "staple" or "misspelling"
    query: str
    pattern: str
    hit: bool
    shown: list[tuple[str, str]]  # (data_type, name) of the rows judged
    corrected_q: str | None


def top(q: str, count: int) -> tuple[list[dict[str, Any]], str | None]:
    from catalogue import selectors
    from catalogue.paging import Position
    from catalogue.params import parse_food_query

    query = parse_food_query({"q": [q]})
    page = selectors.food_search(query=query, market="US", depth=1000, position=Position(0))
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
    return outcomes


def rates(outcomes: list[Outcome]) -> dict[str, tuple[int, int]]:
    """kind -> (hits, queries)."""
    out: dict[str, tuple[int, int]] = {}
    for kind in ("staple", "misspelling"):
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


def write_results(outcomes: list[Outcome], foods: int) -> None:
    (staples, n_staples), (misspelt, n_misspelt) = rates(outcomes).values()
    misses = [o for o in outcomes if not o.hit]
    section = [
        "## Search quality (judged set)",
        "",
        f"Run {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by `bench/search_quality.py` on "
        f"{foods:,} foods (SR28 + the full FDC table). The set: bench/judged_set.py.",
        "",
        "| queries | target | result |",
        "|---|---|---|",
        f"| {n_staples} staples: a whole food (foundation, SR Legacy / SR28, survey) in the "
        f"top 3 | >= 95% | {staples}/{n_staples} = {staples / n_staples:.1%} |",
        f"| {n_misspelt} misspellings: the meant food in the top 5 | >= 90% | "
        f"{misspelt}/{n_misspelt} = {misspelt / n_misspelt:.1%} |",
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
