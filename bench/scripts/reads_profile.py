"""Where a metered read spends its time (issue 13): cProfile of in-process requests.

Serves ``--requests`` reads of a record and of ``q=cheese`` through Django's test
client (the whole middleware stack, DRF, authentication, the meter on a throwaway
redis-server), after a warm-up, and prints the mean time per request and the functions
with the most cumulative time. Run it from another checkout's directory to profile that
code (the working directory shadows the installed package):

``--spread N`` (issue 28.5) profiles real traffic instead: each request reads one of N
random foods, or searches one of reads.py's ~1,150 queries (bench/kits/spread.py),
picked at random, so most requests take the cache-miss path.

    cd /tmp/base && /work/main/.venv/bin/python /work/main/bench/scripts/reads_profile.py \\
        --database-url postgres://postgres@127.0.0.1:5432/DB
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this tree's harness

from bench.kits.inprocess import metered_client
from bench.kits.spread import spread_paths
from tests.support.engines import ThrowawayRedis

# The code profiled is the working directory's (another checkout: a baseline): first on
# the path for everything imported from here on (Django, the apps), while the harness
# imported above stays this tree's.
sys.path.insert(0, os.getcwd())

# The steps of a read worth seeing (cumulative time, so nested steps overlap).
MATCH = (
    r"(authenticate\(|principal_get|cached_principal|usage_consume|throttling.py.*allow_request|"
    r"nutrients_by_id|food_detail\(|food_summary|renderers.py.*render|etag_for|"
    r"food_search|_widened|_ranked|phrase_rows|phrase_count|food_record|summaries|"
    r"count\(|evalsha|requestlog.py.*__call__|finalize_response|cursor.py.*execute\(|"
    r"_food_record|current_version|rewrite|_food_page|_phrase_page|spelling.py.*correct|_whole_words)"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--food", default="sr28-01001")
    parser.add_argument("--top", type=int, default=14)
    parser.add_argument("--spread", type=int, default=0, help="records of N random foods")
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    redis = ThrowawayRedis()
    redis.start()
    try:
        client = metered_client(args.database_url, redis.url, "profile")
        kinds = {"record": [f"/v1/foods/{args.food}"], "search": ["/v1/foods?q=cheese"]}
        if args.spread:  # pgspread, the reads server's reference view, is not routed here
            spread = spread_paths(args.database_url, args.spread)
            kinds = {kind: spread[kind] for kind in ("record", "search")}
        chooser = random.Random(args.seed)
        for kind, paths in kinds.items():
            for _ in range(20):  # warm-up
                assert client.get(chooser.choice(paths)).status_code == 200
            chosen = [chooser.choice(paths) for _ in range(args.requests)]
            profile = cProfile.Profile()
            started = time.perf_counter()
            profile.enable()
            for path in chosen:
                client.get(path)
            profile.disable()
            mean = (time.perf_counter() - started) / args.requests * 1000
            path = f"{kind} ({len(paths):,} paths)" if args.spread else paths[0]
            out = io.StringIO()
            stats = pstats.Stats(profile, stream=out).sort_stats("cumulative")
            stats.print_stats(MATCH, args.top)
            print(f"== {path}: {mean:.2f} ms per request (under the profiler)")
            lines = out.getvalue().splitlines()
            start = next(i for i, line in enumerate(lines) if "ncalls" in line)
            print("\n".join(line for line in lines[start:] if line.strip()))
    finally:
        redis.stop()


if __name__ == "__main__":
    main()
