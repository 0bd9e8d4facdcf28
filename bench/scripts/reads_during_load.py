"""Reads while the catalogue loads (issue 28, point 3): no 5xx, p95 within 2x of idle.

    .venv/bin/python bench/scripts/reads_during_load.py [--seconds 30] [--nice 10] [--no-write]

What it does, against 127.0.0.1 only, and stopping by itself:

1. Creates a PostgreSQL database (``fs_rdl_<pid>``, dropped at the end),
   migrates it and loads SR28 and IFCT: the catalogue an operator serves before adding
   the FDC table (``--source``: the load measured).
2. Starts a throwaway Redis and one gunicorn the production way (``gunicorn.conf.py``,
   request logs on), creates fresh accounts and keeps those no quota refuses (Head
   Chef, large Executive Chef), so the reads measure the catalogue, not quota 429s.
3. **Idle**: ``--concurrency`` keep-alive clients send ``bench/scripts/load.py``'s mix (searches,
   record reads, revalidations, usage, bad keys) for ``--seconds``.
4. **Loading**: the same clients again while ``manage.py load_catalogue --source fdc
   --json`` runs as its own process (as an operator runs it, under ``nice -n --nice``),
   until it finishes: 390k foods read, written, indexed, grouped and rendered while the
   server answers.
5. **After**: the mix again for ``--seconds`` on the bigger catalogue.

Prints each phase's requests, rate and latency percentiles, its statuses, the load's
phases, and the verdict: no 5xx (nor a failed connection) in any phase, and the loading
phase's p95 of the reads served (200 and 304) at most twice the idle phase's. Writes
the figures to bench/RESULTS.md ("## Reads during a load") unless ``--no-write``. Exit
status 1 when the verdict fails.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from bench.kits import loadkit
from bench.kits.loadkit import (
    Account,
    Client,
    Gunicorn,
    Sample,
    ThrowawayRedis,
    Verdict,
    base_env,
    cleanup,
    latency_row,
    machine,
    make_accounts,
    manage,
    percentile,
    standard_plan,
    status_summary,
)

SERVER = "postgres://postgres@127.0.0.1:5432"


def p95(samples: list[Sample]) -> float:
    """Of the reads served (200 and 304): what the catalogue's state can slow down."""
    return percentile([s.latency * 1000 for s in samples if s.status in (200, 304)], 95)


def load_process(env: dict[str, str], source: str, nice: int) -> subprocess.Popen:
    command = [sys.executable, "manage.py", "load_catalogue", "--source", source, "--json"]
    if nice:
        command = ["nice", "-n", str(nice), *command]
    return subprocess.Popen(
        command,
        cwd=loadkit.ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


Phases = dict[str, tuple[list[Sample], float]]  # name -> (samples, seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30, help="idle and after phases")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--source", default="fdc", help="the source loaded during reads")
    parser.add_argument("--nice", type=int, default=0, help="the load's niceness")
    parser.add_argument("--port", type=int, default=8191)
    parser.add_argument("--name", default=f"fs_rdl_{os.getpid()}")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", args.name], check=True)
    redis = ThrowawayRedis()
    redis.start()
    env = base_env(
        database_url=f"{SERVER}/{args.name}", redis_url=redis.url, GUNICORN_MAX_REQUESTS="0"
    )
    server = Gunicorn(env, port=args.port, workers=_workers(), threads=4)
    try:
        with cleanup(server, redis):
            manage(env, "migrate", "--noinput", "-v0")
            for source in ("sr28", "ifct"):
                if source != args.source:
                    manage(env, "load_catalogue", "--source", source, "--json")
            accounts, foods = make_accounts(env, standard_plan(1))
            # Accounts nothing refuses: the reads measure the catalogue, not quota 429s.
            accounts = [a for a in accounts if a.label in ("head_chef", "executive_chef")]
            server.start()
            phases, load_phases = _phases(args, env, accounts, foods)
    finally:
        subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", args.name], check=False)

    verdict = _verdict(phases)
    report = "\n".join(_report(args, phases, load_phases, verdict))
    print(report)
    if not args.no_write:
        loadkit.write_section("## Reads during a load", report)
    return 0 if verdict.passed else 1


def _phases(
    args: argparse.Namespace, env: dict[str, str], accounts: list[Account], foods: list[str]
) -> tuple[Phases, list[dict]]:
    """The mix while idle, while ``load_catalogue`` runs (until it ends), and after; and
    the load's own phases (its ``--json`` lines)."""
    phases: Phases = {}

    def run(name: str, seconds: float) -> None:
        client = Client(args.port, accounts, foods, concurrency=args.concurrency)
        started = time.monotonic()
        phases[name] = (client.run_for(seconds), time.monotonic() - started)

    run("idle", args.seconds)
    loader = load_process(env, args.source, args.nice)
    client = Client(args.port, accounts, foods, concurrency=args.concurrency, seed=2)
    started = time.monotonic()
    client.start(3600)
    _, err = loader.communicate()
    client.stop()
    client.join()
    phases["loading"] = (client.samples, time.monotonic() - started)
    if loader.returncode != 0:
        raise RuntimeError(f"load_catalogue failed:\n{err[-4000:]}")
    load_phases = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    run("after", args.seconds)
    return phases, load_phases


def _verdict(phases: Phases) -> Verdict:
    """No 5xx nor failed connection in any phase; p95 while loading within 2x of idle."""
    verdict = Verdict("reads during a load")
    for name, (samples, _) in phases.items():
        bad = [s for s in samples if s.status >= 500 or s.status == 0]
        verdict.check(f"no 5xx or failed connection while {name}", not bad, f"{len(bad)} seen")
    idle, loading = p95(phases["idle"][0]), p95(phases["loading"][0])
    verdict.check(
        "p95 while loading within 2x of idle",
        loading <= 2 * idle,
        f"{loading:.1f} ms against {idle:.1f} ms idle ({loading / idle:.2f}x)",
    )
    return verdict


def _report(
    args: argparse.Namespace, phases: Phases, load_phases: list[dict], verdict: Verdict
) -> list[str]:
    """The "## Reads during a load" section."""
    rows = [latency_row(name, samples, seconds) for name, (samples, seconds) in phases.items()]
    statuses = [f"- {name}: {status_summary(samples)}" for name, (samples, _) in phases.items()]
    parts = ", ".join(
        f"{p['phase']} {p['seconds']}s" for p in load_phases if "phase" in p and "seconds" in p
    )
    return [
        f"`bench/scripts/reads_during_load.py --seconds {args.seconds:g} --concurrency "
        f"{args.concurrency} --nice {args.nice}`, {dt.date.today()}, {machine()}; "
        f"load average at the end {os.getloadavg()}.",
        "",
        f"`load_catalogue --source {args.source}` onto SR28 + IFCT took "
        f"{phases['loading'][1]:.1f} s while the server answered ({parts}).",
        "",
        "| phase | requests | req/s | p50 ms | p95 ms | p99 ms |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "p95 of the reads served (200 and 304): "
        + ", ".join(f"{name} {p95(samples):.1f} ms" for name, (samples, _) in phases.items()),
        "",
        "Statuses:",
        *statuses,
        "",
        *verdict.markdown(),
    ]


def _workers() -> int:
    return int(os.environ.get("WEB_CONCURRENCY", "0")) or 2 * (os.cpu_count() or 1) + 1


if __name__ == "__main__":
    sys.exit(main())
