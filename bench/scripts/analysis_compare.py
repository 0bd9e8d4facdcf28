"""POST /v1/analysis's selector in two trees, in one run: this tree and ``--before DIR`` (a
``git archive`` of an earlier commit, with ``.venv`` linked), each in its own worker
process on the same database, fed the same bodies in turn (issue 38: "10 lines p95 no
worse than today's, same run before/after").

    git archive 70f1090 | tar -x -C /tmp/b70 && ln -s $PWD/.venv /tmp/b70/.venv
    DATABASE_URL=postgres://.../fs_full .venv/bin/python bench/scripts/analysis_compare.py \\
        --before /tmp/b70 --rounds 60

Bodies are drawn (seeded) from every judged recipe line of this tree (US and IN sets),
each body new to both workers (no warm-up pass over the bodies: a worker has analysed
only ``WARM`` other lines, as one does after start-up), sent to one worker then the
other, the first alternating. Each worker runs ``analysis_run`` (market None, as a paid
tier sees every market) and reports its milliseconds; both are set up as gunicorn's
workers are (core/gctune.py: start-up objects frozen, first-generation threshold
raised) unless ``--no-settle``, the same code in both, so the trees differ only in their
own code. A benchmark, not a test: no assertion on time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.gctune import GEN0_THRESHOLD  # noqa: E402
from tests.support.judged import analysis_set, analysis_set_india  # noqa: E402

# Lines a worker analyses before the bodies (its connections opened, its modules warm).
WARM = ["1 cup milk", "2 eggs", "1 tbsp butter", "1 cup flour", "1 tsp salt"]

_WORKER = r"""
import gc, json, os, sys, time
sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
import django
django.setup()
from catalogue.analysis.selectors import analysis_run
analysis_run(lines=json.loads(sys.argv[1]), market=None)
if int(sys.argv[2]):
    gc.collect(); gc.freeze()
    _, one, two = gc.get_threshold(); gc.set_threshold(int(sys.argv[2]), one, two)
print("ready", flush=True)
for raw in sys.stdin:
    body = json.loads(raw)
    start = time.perf_counter()
    analysis_run(lines=body, market=None)
    print(f"{(time.perf_counter() - start) * 1000:.3f}", flush=True)
"""


def _worker(tree: Path, settle: bool) -> subprocess.Popen[str]:
    python = tree / ".venv" / "bin" / "python"
    process = subprocess.Popen(
        [str(python), "-c", _WORKER, json.dumps(WARM), str(GEN0_THRESHOLD if settle else 0)],
        cwd=tree,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "METERING_ENABLED": "0"},
    )
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if line != "ready":
        raise SystemExit(f"worker in {tree} did not start: {line!r}")
    return process


def _time(process: subprocess.Popen[str], body: list[str]) -> float:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(body) + "\n")
    process.stdin.flush()
    return float(process.stdout.readline())


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--no-settle", dest="settle", action="store_false")
    args = parser.parse_args()
    lines = sorted(
        {line for line, _, _ in analysis_set.LINES + analysis_set.GROWN}
        | {line for line, _, _ in analysis_set_india.LINES}
    )
    rng = random.Random(args.seed)
    bodies = [rng.sample(lines, args.size) for _ in range(args.rounds)]
    trees = {"before": args.before.resolve(), "after": ROOT}
    workers = {name: _worker(tree, args.settle) for name, tree in trees.items()}
    times: dict[str, list[float]] = {name: [] for name in trees}
    try:
        for k, body in enumerate(bodies):
            order = ["before", "after"] if k % 2 == 0 else ["after", "before"]
            for name in order:
                times[name].append(_time(workers[name], body))
    finally:
        for process in workers.values():
            process.kill()
    print(f"{args.rounds} bodies of {args.size} lines, settled: {args.settle}")
    for name in trees:
        values = times[name]
        print(
            f"  {name:<6} p50 {_p(values, 0.5):6.1f} ms  p95 {_p(values, 0.95):6.1f} ms"
            f"  max {max(values):6.1f} ms  ({trees[name]})"
        )
    for q in (0.5, 0.95):
        ratio = _p(times["after"], q) / _p(times["before"], q)
        print(f"  after / before at p{int(q * 100)}: {ratio:.2f}")


if __name__ == "__main__":
    main()
