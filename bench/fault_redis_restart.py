"""Fault: Redis restarts in the middle of the load (issue 7.6).

Uses a throwaway redis-server of its own on a free port (never the shared 6379), without
persistence: it is killed (SIGKILL) mid-load and started again empty, as after a crash
or a failover to an empty replica. While it is down, ``revoke_key`` and ``rotate_key``
are run. Expected (docs/metering.md, "Redis and failures"): metered reads answer the
503 ``service-unavailable`` problem (``METER_FAILURE_POLICY=closed``), never a 500;
reads succeed again within seconds of Redis returning, with every account's count
rebuilt from the usage history (exact, as the outage outlasts ``METER_FLUSH_SECONDS``:
every worker has written its buffer meanwhile); nobody over quota; the revocation and
rotation hold; the history holds every admitted request (nothing crashed).

    .venv/bin/python bench/fault_redis_restart.py [--down 3] [--after 8] [--no-write]

Database: postgres://postgres@127.0.0.1:5432/fs_load_quick (SR28; created and loaded
when missing), or ``--database-url``. Exit status 1 on any FAIL.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import faultkit
import loadkit


def main() -> int:
    args = faultkit.arguments(__doc__.splitlines()[0])
    started = time.monotonic()
    redis, env, server = faultkit.on_shared_postgres(args)
    fault = faultkit.Fault(
        "redis-server (SIGKILL, restarted empty)",
        down=redis.stop,
        up=redis.start,
        usage_may_trail=args.down < faultkit.FLUSH_SECONDS + 1,
    )
    with loadkit.cleanup(server, redis):
        return faultkit.run(
            "fault: Redis restart",
            args,
            env=env,
            fault=fault,
            server=server,
            exact_history=True,
            results_heading="### Redis restart",
            started_at=started,
        )


if __name__ == "__main__":
    sys.exit(main())
