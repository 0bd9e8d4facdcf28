"""Fault: a gunicorn worker is killed with SIGKILL in the middle of the load (issue 7.6,
issue 19).

gunicorn (``gunicorn.conf.py``) on PostgreSQL + a throwaway redis-server of its own.
Mid-load one worker gets SIGKILL; its in-flight requests die with their connections
(the client sees a connection error, never a 500) and the master starts a new worker.
A key is revoked and another rotated right after the kill.

Expected (docs/metering.md, "Usage history"): no 500; reads keep succeeding (the
other workers answer) and the master replaces the worker within seconds; the live counts
and the per-key hourly buckets are in Redis, counted in the same atomic step, so every
account's ``/v1/usage`` equals the requests the client saw admitted (plus at most the
requests whose answers died with the worker: the meter may have counted them); nobody
over quota; the revocation and rotation hold; the usage history misses **nothing**
(0 requests missing: the killed worker's counts are copied by the other workers).

``--then-flush-redis``: right after the kill, Redis loses everything (FLUSHALL), as a
failover to an empty replica would. Then the counts are rebuilt from the history, which
lacks at most what was admitted since the last copy: every account's history and live
count may trail by at most the requests of the last ``METER_FLUSH_SECONDS`` (+ a
margin) before the loss, and no account is admitted more than its quota plus that.

    .venv/bin/python bench/scripts/fault_worker_kill.py [--after 8] [--then-flush-redis]
        [--no-write]

Database: postgres://postgres@127.0.0.1:5432/fs_load_quick (SR28; created and loaded
when missing), or ``FAULT_DATABASE_URL``. Exit status 1 on any FAIL.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from bench.kits import faultkit, loadkit


def main() -> int:
    args = faultkit.arguments(
        __doc__.splitlines()[0],
        lambda parser: parser.add_argument("--then-flush-redis", action="store_true"),
    )
    started = time.monotonic()
    redis, env, server = faultkit.on_shared_postgres(args)
    killed: dict[str, object] = {}
    # Connected before the fault, so that the flush follows the kill within
    # milliseconds (importing redis-py in the middle of the load took seconds).
    import redis as redis_py

    store = redis_py.Redis.from_url(redis.url)
    store.ping()

    def kill() -> None:
        before = server.worker_pids()
        victim = before[0]
        os.kill(victim, signal.SIGKILL)
        killed.update(pid=victim, before=set(before), at=time.monotonic())
        if args.then_flush_redis:
            store.flushall()
            killed["flushed_after"] = time.monotonic() - killed["at"]  # type: ignore[operator]

    def replaced(verdict: loadkit.Verdict) -> None:
        if "flushed_after" in killed:
            print(f"  Redis flushed {killed['flushed_after']:.3f} s after the kill")
        pids = set(server.worker_pids())
        verdict.check(
            "the master replaced the killed worker",
            killed["pid"] not in pids and len(pids) == args.workers,
            f"killed {killed['pid']}; workers now {sorted(pids)}",
        )

    name = "SIGKILL to one gunicorn worker" + (
        ", then Redis FLUSHALL" if args.then_flush_redis else ""
    )
    fault = faultkit.Fault(
        name,
        down=kill,
        up=lambda: None,
        expects_503=False,
        usage_may_trail=args.then_flush_redis,
        extra_checks=replaced,
    )
    with loadkit.cleanup(server, redis):
        return faultkit.run(
            "fault: worker SIGKILL" + (" then Redis flushed" if args.then_flush_redis else ""),
            args,
            env=env,
            fault=fault,
            server=server,
            exact_history=not args.then_flush_redis,
            results_heading="### Worker SIGKILL"
            + (", then Redis flushed" if args.then_flush_redis else ""),
            started_at=started,
        )


if __name__ == "__main__":
    sys.exit(main())
