"""Scores the judged set of POST /v1/analysis (tests/support/judged/analysis_set.py)
against the catalogue of ``DATABASE_URL``, printing every miss (issue 26, point 5).

    DATABASE_URL=postgres://.../fs_full_copy .venv/bin/python bench/scripts/analysis_quality.py

Scored by tests/support/judged/analysis_scoring.py (a food hit, a grams hit; targets of
issue 26: at least 90% of each), as tests/catalogue/analysis/test_judged_set.py scores
a sample in CI. Prints the misses of the first 105 lines (``LINES``) and of the lines
grown later (``GROWN``), then the rates of each and of both together.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
django.setup()

from tests.support.judged.analysis_scoring import evaluate, report  # noqa: E402
from tests.support.judged.analysis_set import GROWN, LINES  # noqa: E402


def main() -> None:
    first, grown = evaluate(LINES), evaluate(GROWN)
    for title, outcomes in (("first 105 lines", first), ("grown lines", grown)):
        print(f"== {title}")
        print("\n".join(report(outcomes)))
    print("== both")
    print("\n".join(report(first + grown)[-2:]))


if __name__ == "__main__":
    main()
