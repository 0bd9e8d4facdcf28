"""What a new search costs in Python and in PostgreSQL (issue 41.1, the miss path).

Sends ``--requests`` distinct searches, each new to the process (no page of it in the
worker's memory or in Redis), through Django's test client (the whole middleware stack,
DRF, authentication, the meter on a throwaway redis-server) after a warm-up of 20 other
queries, and prints per search: the Python CPU of this process (``time.process_time``),
the CPU of its PostgreSQL backend (``/proc/<pid>/stat``, user + system) and the SQL
statements sent. Queries (``--kind``): ``sr28``, the first one and two words of SR28
names, as bench/kits/spread.py makes reads.py's spread; ``words``, catalogue words held by
20-5,000 foods, as bench/scripts/capacity.py's "search new". ``--profile`` prints
cProfile's top functions instead.

Run it from another checkout's directory to measure that code (the working directory
comes first on the path, as for bench/scripts/reads_profile.py); the machine is shared,
so alternate the trees a few times and compare the rounds:

    cd /tmp/base && /work/main/.venv/bin/python /work/main/bench/scripts/search_miss.py \\
        --database-url postgres://postgres@127.0.0.1:5432/DB [--kind sr28] [--requests 300]

It writes an account and a key to the database: run it on a copy of the catalogue.
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
from tests.support.engines import ThrowawayRedis

sys.path.insert(0, os.getcwd())  # the code measured: the working directory's

TICKS = os.sysconf("SC_CLK_TCK")

QUERIES = {
    "sr28": "SELECT search_name FROM catalogue_food WHERE source = 'sr28'"
    " ORDER BY md5(search_name)",
    "words": "SELECT word FROM catalogue_word WHERE foods BETWEEN 20 AND 5000"
    " AND word ~ '^[a-z]{5,}$' ORDER BY md5(word)",
}


def queries(database_url: str, kind: str, count: int, seed: int) -> list[str]:
    """``count`` distinct queries of ``kind`` (the module docstring), in a seeded order."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        names = [row[0] for row in conn.execute(QUERIES[kind])]
    found: dict[str, None] = {}
    for name in names:
        words = [w for w in name.split() if w.isalpha() and len(w) > 2]
        for q in (" ".join(words[:1]), " ".join(words[:2])) if kind == "sr28" else (name,):
            if q:
                found[q] = None
    chosen = list(found)
    random.Random(seed).shuffle(chosen)
    return chosen[:count]


def backend_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--kind", choices=sorted(QUERIES), default="sr28")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="cProfile's top functions")
    args = parser.parse_args()
    redis = ThrowawayRedis()
    redis.start()
    try:
        client = metered_client(args.database_url, redis.url, "search-miss")
        from django.db import connection

        from metering.recorder import flusher

        chosen = queries(args.database_url, args.kind, args.requests + 20, args.seed)
        warm, measured = chosen[:20], chosen[20:]
        for q in warm:  # imports, plans, connections
            assert client.get("/v1/foods", {"q": q}).status_code == 200
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        profile = cProfile.Profile(time.process_time)
        sent: list[str] = []

        def count(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
            sent.append(sql)  # counted, not formatted (Django's capture formats each)
            return execute(sql, params, many, context)

        python, postgres = time.process_time(), backend_cpu(pid)
        with connection.execute_wrapper(count):
            if args.profile:
                profile.enable()
            for q in measured:
                assert client.get("/v1/foods", {"q": q}).status_code == 200
            profile.disable()
        python, postgres = time.process_time() - python, backend_cpu(pid) - postgres
        n = len(measured)
        print(
            f"{args.kind}: {n} new searches, per search: Python {python / n * 1000:.2f} ms, "
            f"PostgreSQL {postgres / n * 1000:.2f} ms, {len(sent) / n:.2f} statements "
            f"(load average {' '.join(f'{x:.1f}' for x in os.getloadavg())})"
        )
        if args.profile:
            out = io.StringIO()
            st=pstats.Stats(profile, stream=out); st.sort_stats("cumulative").print_callers("__getattribute__"); st.print_callers("urlencode")
            print(out.getvalue())
        flusher.flush_quietly()  # the usage history, while its Redis still runs
    finally:
        redis.stop()


if __name__ == "__main__":
    main()
