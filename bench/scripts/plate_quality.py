"""Scores the logged plates (tests/support/judged/plate_set.py) against the catalogue of
``DATABASE_URL``, printing every miss (issue 38's weighed-plates target, issue 39.4).

    DATABASE_URL=postgres://.../fs_full METERING_ENABLED=0 \
        .venv/bin/python bench/scripts/plate_quality.py [--no-results]

Each plate is one analysis (tests/support/judged/plate_scoring.py): read as eaten
(``logging``), then, to compare, as bought (``cooking``, what the plates got before issue
39.4). US plates among every market's foods as a paid tier sees them, IN plates too
(IFCT names no cooked rice, dal or roti). Targets: a plate's energy within 15 % for 90 %
of plates, protein, fat and carbohydrate each 85 %. Writes its own section of
bench/RESULTS.md ("Logged plates"), replacing it if present, unless ``--no-results``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
django.setup()

from bench.kits.loadkit import write_section  # noqa: E402
from tests.support.judged import plate_set  # noqa: E402
from tests.support.judged.plate_scoring import evaluate, rates, report  # noqa: E402

HEADING = "## Logged plates (issue 39.4)"


def _rates_line(outcomes: list) -> str:
    return ", ".join(
        f"{key.split('_')[0]} {hits}/{total} ({100 * hits / total:.1f} %)"
        for key, (hits, total) in rates(outcomes).items()
    )


def main() -> None:
    rows = []
    for kind in ("logging", "cooking"):
        for market, plates in (("US", plate_set.US), ("IN", plate_set.IN)):
            outcomes = evaluate(plates, plate_set.FOODS, nutrition_type=kind)
            print(f"== {market} plates, {kind}")
            print("\n".join(report(outcomes)))
            rows.append(f"| {market} | {kind} | {len(plates)} | {_rates_line(outcomes)} |")
    if "--no-results" in sys.argv:
        return
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    section = "\n".join(
        [
            f"bench/scripts/plate_quality.py on the full catalogue at {commit}: each plate of "
            'tests/support/judged/plate_set.py ("150 g brown rice" lines, bare names) sent '
            "as one analysis among every market's foods; a total is a hit within 15 % of "
            "the SR28 reference foods' values x grams. Targets (issue 38): energy 90 %, "
            "protein, fat, carbohydrate 85 % each. `cooking` is how plates were read before "
            "issue 39.4.",
            "",
            "| plates | nutrition_type | n | within 15 % |",
            "|---|---|---|---|",
            *rows,
            "",
        ]
    )
    write_section(HEADING, section)


if __name__ == "__main__":
    main()
