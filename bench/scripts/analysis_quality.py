"""Scores the judged sets of POST /v1/analysis against the catalogue of ``DATABASE_URL``,
printing every miss (issue 26, point 5; market IN: issue 38, point 7).

    DATABASE_URL=postgres://.../fs_full_copy .venv/bin/python bench/scripts/analysis_quality.py

Scored by tests/support/judged/analysis_scoring.py (a food hit, a grams hit; targets of
issue 26 and 38: at least 90% of each), as tests/catalogue/analysis/test_judged_set.py
scores a sample in CI. Prints the misses of the US set's first 105 lines (``LINES``) and
of the lines grown later (``GROWN``), in every market as a paid tier sees them, then the
rates of each and of both together; then the misses and rates of the Indian recipe
lines (tests/support/judged/analysis_set_india.py) in market IN, as a Taster of market
IN sees them, and what its lines of foods IFCT does not hold (``ABSENT``) got: a food
standing in for one of them is printed as MATCHED.
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

from tests.support.judged import analysis_set_india  # noqa: E402
from tests.support.judged.analysis_scoring import evaluate, report, unguessed  # noqa: E402
from tests.support.judged.analysis_set import GROWN, LINES  # noqa: E402


def main() -> None:
    first, grown = evaluate(LINES), evaluate(GROWN)
    for title, outcomes in (("first 105 lines", first), ("grown lines", grown)):
        print(f"== {title}")
        print("\n".join(report(outcomes)))
    print("== both")
    print("\n".join(report(first + grown)[-2:]))
    # The same lines as a paid tier of market US reads them (``?market=US``, issue 38.5):
    # US recipes among US foods, IFCT's records out of reach.
    in_us = evaluate(LINES + GROWN, market="US")
    print("== both, market US")
    print("\n".join(line for line in report(in_us) if not line.startswith("ok")))
    print("== market IN: Indian recipe lines")
    print("\n".join(report(evaluate(analysis_set_india.LINES, market="IN"))))
    print("== market IN: foods IFCT does not hold (none may be matched)")
    print("\n".join(unguessed(analysis_set_india.ABSENT, market="IN")))


if __name__ == "__main__":
    main()
