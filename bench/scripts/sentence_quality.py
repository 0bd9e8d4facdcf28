"""Scores the meal-in-one-sentence splitter on its judged sets against the catalogue of
``DATABASE_URL`` (issue 39.3), printing every miss and the rate per market.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fs_full METERING_ENABLED=0 \\
        .venv/bin/python bench/scripts/sentence_quality.py

Scored by tests/support/judged/sentence_scoring.py (a sentence is right when its items
are exactly the judged ones; target: at least 90%). The dish lookup reads the
catalogue, so the figures are those of the full catalogue only on fs_full. Also prints
how long the splitting of every sentence took (one dish query each) and how many of
the items the analysis then matched to a food (information, not the target).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
django.setup()

from catalogue.analysis.selectors import analysis_run  # noqa: E402
from tests.support.judged import sentence_set  # noqa: E402
from tests.support.judged.sentence_scoring import evaluate, report  # noqa: E402


def main() -> None:
    for title, judged, market in (
        ("market US", sentence_set.US, "US"),
        ("market IN", sentence_set.IN, "IN"),
    ):
        started = time.perf_counter()
        outcomes = evaluate(judged, market=market)
        took = (time.perf_counter() - started) * 1000 / len(outcomes)
        print(f"== {title}")
        print("\n".join(report(outcomes)))
        found = [item for o in outcomes for item in o.found]
        lines = analysis_run(lines=found[:100], market=market).lines
        matched = sum(line["status"] == "matched" for line in lines)
        print(f"splitting: {took:.1f} ms a sentence; items matched to a food: "
              f"{matched}/{len(lines)}")  # fmt: skip


if __name__ == "__main__":
    main()
