"""Scores the ingredient-line parser on every external labelled line (issue 38.2):
strangetom/ingredient-parser's test_parser.json (472 sentences) and its NYT snapshot
(26,685 rows), vendored in tests/catalogue/data/parser_external/, judged by
tests/support/judged/parser_external.py (as the CI test judges a fixed sample).
Prints every miss of this tree's parser, then the rates of an older tree's parser
(``--before``, default HEAD: its parser.py and units.py from git, in this process) and
of this tree's, and writes its section of bench/RESULTS.md.

    .venv/bin/python bench/scripts/parser_external.py [--before REV] [--no-write]

Pure parsing: no database is read.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import django

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
django.setup()

from bench.kits.loadkit import write_section  # noqa: E402
from catalogue.analysis.parser import parse_line  # noqa: E402
from tests.support.judged import parser_external as scorer  # noqa: E402


def _module(name: str, source: str) -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)  # noqa: S102 (the repo's own code)
    return module


def older_parser(rev: str) -> Callable[[str], Any]:
    """``parse_line`` of ``rev``'s parser.py over ``rev``'s units.py, loaded aside."""

    def show(path: str) -> str:
        return subprocess.run(
            ["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout

    _module("_before_units", show("catalogue/analysis/units.py"))
    source = show("catalogue/analysis/parser.py").replace(
        "from catalogue.analysis.units import", "from _before_units import"
    )
    return _module("_before_parser", source).parse_line


def _rate(pair: tuple[int, int]) -> str:
    return f"{100 * pair[0] / max(pair[1], 1):.1f} %"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="HEAD", help="the older tree (default HEAD)")
    parser.add_argument("--no-write", action="store_true", help="leave bench/RESULTS.md")
    args = parser.parse_args()
    before_rev = subprocess.run(
        ["git", "rev-parse", "--short", args.before],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    before = older_parser(args.before)
    sets = {"test_parser.json": scorer.parser_json_rows(), "NYT snapshot": scorer.nyt_rows()}
    rows = []
    for title, lines in sets.items():
        started = time.perf_counter()
        after = scorer.evaluate(lines, parse_line)
        seconds = time.perf_counter() - started
        old = scorer.evaluate(lines, before)
        print(f"== {title} (this tree)")
        print("\n".join(scorer.report(after)))
        target = scorer.TARGETS["test_parser" if title.startswith("test_") else "nyt"]
        for label, outcomes in ((before_rev, old), ("this tree", after)):
            r = scorer.rates(outcomes)
            rates = " | ".join(_rate(r[part]) for part in ("quantity", "unit", "head"))
            rows.append(
                f"| {title} | {label} | {len(lines):,} | {rates} | **{_rate(r['all'])}**"
                f" | {target:.0%} |"
            )
        print(f"{title}: {len(lines)} lines parsed in {seconds:.2f} s")
    table = "\n".join(
        [
            "| set | parser | lines | quantity | unit | head noun | all three | target |",
            "|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )
    print(table)
    if not args.no_write:
        when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        body = (
            f"{when}, vm: nproc {os.cpu_count()}. `bench/scripts/parser_external.py`: "
            "`catalogue.analysis.parser.parse_line` on strangetom/ingredient-parser's labelled "
            "lines (MIT, vendored in `tests/catalogue/data/parser_external/`: test_parser.json "
            "at ef390f5, 472 sentences; the NYT snapshot with cleaned labels at 43beba7, the "
            "26,685 rows with a name and a numeric quantity), judged by "
            "`tests/support/judged/parser_external.py` (quantity within rounding, the unit after "
            "mapping upstream spellings to ours, the name's head noun among the food words; its "
            f"docstring has the rules). Before: {before_rev}'s parser.py and units.py, in the "
            "same run.\n\n" + table
        )
        write_section("## Issue 38: the parser on external labelled lines", body)


if __name__ == "__main__":
    main()
