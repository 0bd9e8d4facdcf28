"""Fault: PostgreSQL restarts in the middle of the load (issue 7.6).

Uses a throwaway PostgreSQL cluster of its own (``initdb`` into a temporary directory as
the postgres user, listening on 127.0.0.1 at a free port; removed at the end), never the
shared cluster, and a throwaway redis-server. Mid-load the cluster is stopped with
``pg_ctl stop -m fast`` (every session cut) and started again. While it is down,
``revoke_key`` and ``rotate_key`` are run: with the database down they cannot be done and
must say so (no half-done change); they are run again afterwards and must then hold.

Expected: requests needing the database answer the 503 ``service-unavailable`` problem,
never a 500; reads succeed again within seconds of PostgreSQL returning (the workers
reconnect on their own); the live counts (Redis) are untouched, so every account's
``/v1/usage`` equals the requests the client saw admitted; nobody over quota; the usage
history written while the database was down is kept and written afterwards, so the
history holds every admitted request (nothing crashed).

    .venv/bin/python bench/scripts/fault_postgres_restart.py [--down 3] [--after 8] [--no-write]

Exit status 1 on any FAIL.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from bench.kits import faultkit, loadkit


def main() -> int:
    args = faultkit.arguments(__doc__.splitlines()[0])
    started = time.monotonic()
    pg = loadkit.ThrowawayPostgres()
    redis = loadkit.ThrowawayRedis()
    server = None
    try:
        pg.init()
        redis.start()
        env = faultkit.server_env(database_url=pg.url, redis_url=redis.url)
        loadkit.prepare_database(env, catalogue="sample")
        server = loadkit.Gunicorn(env, port=args.port, workers=args.workers, threads=args.threads)
        fault = faultkit.Fault(
            "PostgreSQL (pg_ctl stop -m fast, then start)", down=pg.stop, up=pg.start
        )
        return faultkit.run(
            "fault: PostgreSQL restart",
            args,
            env=env,
            fault=fault,
            server=server,
            exact_history=True,
            results_heading="### PostgreSQL restart",
            started_at=started,
        )
    finally:
        for part in (server, redis):
            if part is not None:
                part.stop()
        pg.destroy()


if __name__ == "__main__":
    sys.exit(main())
