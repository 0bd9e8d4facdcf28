"""The render phase of a load, before and after, in one run (issue 28, point 1).

    DATABASE_URL=postgres://.../fs_copy .venv/bin/python bench/scripts/render_speed.py \
        --before /path/to/old/checkout [--foods 20000] [--rounds 3]

Renders and stores ``--foods`` FDC foods of the catalogue with ``catalogue.delivery.rendering``'s
``render_ids`` (in a child process per checkout and round, alternating, so the machine's
drift hits both alike) and prints each round's seconds and foods per second, then the
median ratio. The renderings are stored: use a copy of the catalogue, not one that
serves.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
import django
django.setup()
from catalogue.delivery import rendering
from catalogue.models import Food
fdc = Food.objects.filter(source="fdc").order_by("id")
ids = list(fdc.values_list("id", flat=True)[: int(sys.argv[2])])
started = time.perf_counter()
rendering.render_ids(ids, processes=int(sys.argv[3]))
print(time.perf_counter() - started)
"""


def run(root: Path, foods: int, processes: int) -> float:
    python = root / ".venv" / "bin" / "python"
    args = [str(python), "-c", CHILD, str(root), str(foods), str(processes)]
    done = subprocess.run(args, cwd=root, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--foods", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    options = parser.parse_args()
    seconds: dict[str, list[float]] = {"before": [], "after": []}
    for round_ in range(options.rounds):
        for label, root in (("before", options.before.resolve()), ("after", ROOT)):
            took = run(root, options.foods, options.processes)
            seconds[label].append(took)
            rate = options.foods / took
            print(f"round {round_ + 1} {label}: {took:.1f}s, {rate:,.0f} foods/s", flush=True)
    before, after = (statistics.median(seconds[k]) for k in ("before", "after"))
    print(
        f"median before {before:.1f}s, after {after:.1f}s: {before / after:.2f}x faster; "
        f"load average {os.getloadavg()}"
    )


if __name__ == "__main__":
    sys.exit(main())
