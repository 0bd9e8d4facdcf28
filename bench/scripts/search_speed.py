"""Search's selector before and after a change, in one run (issue 27, point 7: p95 under
25 ms for one and two words at page 1, under 50 ms for the typo fallback).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fs_full \\
        .venv/bin/python bench/scripts/search_speed.py --before /path/to/old/checkout [--rounds 6]

Runs ``catalogue.search.selectors.food_search`` (market US, page 1, as the API does) over the
query lists of ``bench/kits/queries.py`` (one word, two words, misspellings) in a
child process per checkout and round, alternating which goes first, so the machine's
drift hits both alike; each child warms every query twice, then times ``--runs`` runs
of each. Prints p50 and p95 (ms) per kind and checkout over all rounds, and checks that
both checkouts give the same first page (ids and corrected query) for every query.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.kits.loadkit import percentile  # noqa: E402
from bench.kits.queries import ONE_WORD, TWO_WORDS, TYPOS  # noqa: E402

CHILD = """
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
os.environ["METERING_ENABLED"] = "0"
import django
django.setup()
from catalogue.search import selectors
from catalogue.search.paging import Position
from catalogue.search.params import parse_food_query
kinds, runs = json.loads(sys.argv[2]), int(sys.argv[3])
def search(q):
    query = parse_food_query({"q": [q]})
    return selectors.food_search(query=query, market="US", depth=None, position=Position(0))
out = {"times": {}, "pages": {}}
for kind, queries in kinds.items():
    for q in queries:
        for _ in range(2):
            page = search(q)
        out["pages"][q] = [[json.loads(r["summary"])["id"] for r in page.rows], page.corrected_q]
    times = []
    for _ in range(runs):
        for q in queries:
            started = time.perf_counter()
            search(q)
            times.append((time.perf_counter() - started) * 1000)
    out["times"][kind] = times
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="an older checkout")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--runs", type=int, default=10, help="timed runs of each query")
    args = parser.parse_args()
    kinds = {"one word": ONE_WORD, "two words": TWO_WORDS, "misspelling": TYPOS}
    trees = {"before": args.before.resolve(), "after": ROOT}
    times: dict[str, dict[str, list[float]]] = {t: {k: [] for k in kinds} for t in trees}
    pages: dict[str, dict[str, object]] = {}
    for round_ in range(args.rounds):
        order = list(trees) if round_ % 2 else list(reversed(trees))
        for tree in order:
            done = subprocess.run(
                [sys.executable, "-c", CHILD, str(trees[tree]), json.dumps(kinds), str(args.runs)],
                capture_output=True,
                text=True,
                check=True,
                cwd=trees[tree],
                env=os.environ,
            )
            result = json.loads(done.stdout.strip().splitlines()[-1])
            for kind, values in result["times"].items():
                times[tree][kind] += values
            pages[tree] = result["pages"]
    differ = [q for q in pages["after"] if pages["after"][q] != pages["before"].get(q)]
    print(f"{args.rounds} rounds x {args.runs} runs of each query; ms; pages differ: {differ}")
    print("| kind | before p50 | after p50 | before p95 | after p95 |")
    print("|---|---|---|---|---|")
    for kind in kinds:
        b, a = times["before"][kind], times["after"][kind]
        cells = (percentile(b, 50), percentile(a, 50), percentile(b, 95), percentile(a, 95))
        print(f"| {kind} | " + " | ".join(f"{c:.1f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
