"""Load harness (issue 7.5): gunicorn (``gunicorn.conf.py``) on PostgreSQL + Redis with
the full catalogue, a realistic request mix, figures into bench/RESULTS.md "## Load".

What it does, all against 127.0.0.1 only, and stopping by itself:

1. Prepares the database (default ``fs_load_bench``: a copy of the loaded full catalogue,
   made with ``CREATE DATABASE fs_load_bench TEMPLATE fs_bench_catalogue`` when missing;
   ``--quick``: database ``fs_load_quick`` with SR28 only, ``load_catalogue --source
   sr28``), creates fresh accounts on every tier (Taster with market US, Sous Chef, Head
   Chef, Executive Chef; a few Executive Chef accounts with a tiny quota, so quota 429s
   happen) and starts a throwaway redis-server on a free port (``--redis-url`` to use
   another Redis; never flushed by this script).
2. Starts two gunicorns the production way (``gunicorn --config gunicorn.conf.py``, its
   default workers and threads): metered, and ``METERING_ENABLED=0``.
3. **Mix phase** (``--seconds``, default 30): ``--concurrency`` client threads with
   keep-alive connections send searches (one and two words, page 2, filters, sorting),
   suggestions of what has been typed (a search word cut anywhere), meal analyses
   (``POST /v1/analysis`` of 1 to 8 lines of the analysis judged set),
   record reads, ``If-None-Match`` revalidations of ETags they saw, ``/v1/usage`` and
   bad keys (malformed and unknown) for every account, to the metered server.
4. **Ratio phase** (``--rounds`` x ``--ratio-seconds`` per server, order shuffled each
   round): the same mix restricted to the never-refused accounts (Head Chef, large
   Executive Chef), to both servers, so both do the same work; the ratio of throughput
   and latency is metering's cost.
5. **Check**: every account's ``request_count`` in ``/v1/usage`` equals the requests
   the harness saw admitted for it (metered and not 429) over the whole run.

    .venv/bin/python bench/scripts/load.py                 # ~2 minutes: full catalogue
    .venv/bin/python bench/scripts/load.py --quick         # SR28 only, shorter
    .venv/bin/python bench/scripts/load.py --seconds 300 --rounds 5 --ratio-seconds 60  # longer

Exit status 1 when the usage check fails. ``--no-write`` leaves RESULTS.md alone.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from bench.kits import loadkit
from bench.kits.loadkit import (
    Account,
    Client,
    Gunicorn,
    Mix,
    Sample,
    ThrowawayRedis,
    Verdict,
    admitted_by_account,
    base_env,
    cleanup,
    latency_row,
    machine,
    make_accounts,
    standard_plan,
    status_summary,
    usage_count,
)

PG = "postgres://postgres@127.0.0.1:5432/"
# Real traffic: searches, suggestions as people type, meal analyses (1 to 8 lines),
# revalidations, usage, bad keys; the rest (35 %) record reads.
MIX = Mix(search=0.32, suggest=0.08, analysis=0.04)
FULL_DB, QUICK_DB, TEMPLATE_DB = "fs_load_bench", "fs_load_quick", "fs_bench_catalogue"
KINDS = ("search", "suggest", "analysis", "record", "revalidate", "usage", "bad-key")
SERVED_KINDS = ("search", "suggest", "analysis", "record", "revalidate")  # 2xx/304 table


def ensure_database(name: str, *, template: str | None) -> None:
    import psycopg

    with psycopg.connect(PG + "postgres", autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            return
        if template:
            print(f"creating {name} from {template} (needs nobody connected to it)")
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        else:
            conn.execute(f'CREATE DATABASE "{name}"')


def table(title: str, rows: list[str]) -> list[str]:
    return [
        f"| {title} | requests | req/s | p50 ms | p95 ms | p99 ms |",
        "|---|---|---|---|---|---|",
        *rows,
    ]


@dataclass
class Phases:
    """What the client saw: the warm-up and the mix phase on the metered server, the
    ratio phase on both (by server name, with their seconds), and the load averages."""

    warm: list[Sample]
    mix: list[Sample]
    ratio: dict[str, list[Sample]]
    seconds: dict[str, float]
    loadavg: dict[str, str]  # before, mix, end
    workers: int  # of the metered server
    threads: str


def main() -> int:
    args = _arguments()
    root = Path(args.server_root).resolve() if args.server_root else loadkit.ROOT
    started = time.monotonic()
    database_url = _database_url(args)
    redis = None if args.redis_url else ThrowawayRedis()
    if redis:
        redis.start()
    redis_url = args.redis_url or redis.url  # type: ignore[union-attr]
    env = base_env(database_url=database_url, redis_url=redis_url, GUNICORN_MAX_REQUESTS="0")
    loadkit.prepare_database(env, catalogue="sr28" if args.quick else "keep")
    accounts, foods = make_accounts(env, standard_plan(args.scale))
    print(
        f"{len(accounts)} accounts, {sum(len(a.secrets) for a in accounts)} keys, "
        f"{len(foods)} food ids; setup {time.monotonic() - started:.0f} s"
    )
    metered = Gunicorn(env, port=args.port, workers=_workers(), threads=_threads(), root=root)
    plain = Gunicorn(
        {**env, "METERING_ENABLED": "0"},
        port=args.port + 1,
        workers=_workers(),
        threads=_threads(),
        root=root,
    )
    with cleanup(metered, plain, redis):
        metered.start()
        plain.start()
        phases = _phases(args, metered, plain, accounts, foods)
        verdict = _checks(metered, accounts, phases)
    where = (
        f"{'code of ' + str(root) + ', ' if args.server_root else ''}",
        f"database `{urlsplit(database_url).path.lstrip('/')}`",
        "a throwaway redis-server" if redis else "Redis " + redis_url,
    )
    body = "\n".join(_report(args, where, accounts, phases, verdict))
    print()
    print(body)
    print()
    print(verdict.summary())
    if not args.no_write:
        loadkit.write_section("## Load", body)
    return 0 if verdict.passed else 1


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="SR28 only (database fs_load_quick)")
    parser.add_argument("--database-url", help="a PostgreSQL URL with a loaded catalogue")
    parser.add_argument("--redis-url", help="default: a throwaway redis-server")
    parser.add_argument("--seconds", type=float, default=30, help="mix phase length")
    parser.add_argument("--rounds", type=int, default=2, help="ratio rounds")
    parser.add_argument("--ratio-seconds", type=float, default=12, help="per server per round")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--scale", type=int, default=2, help="accounts: 32 per unit")
    parser.add_argument("--port", type=int, default=8161)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument(
        "--server-root",
        help="serve the code of another checkout (a baseline); this one's harness drives it",
    )
    return parser.parse_args()


def _database_url(args: argparse.Namespace) -> str:
    """``--database-url``, else ``fs_load_quick`` (``--quick``) or ``fs_load_bench``,
    created when missing (the latter from the loaded full catalogue)."""
    if args.database_url:
        assert urlsplit(args.database_url).hostname in ("127.0.0.1", "localhost")
        return args.database_url
    if args.quick:
        ensure_database(QUICK_DB, template=None)
        return PG + QUICK_DB
    ensure_database(FULL_DB, template=TEMPLATE_DB)
    return PG + FULL_DB


def _phases(
    args: argparse.Namespace,
    metered: Gunicorn,
    plain: Gunicorn,
    accounts: list[Account],
    foods: list[str],
) -> Phases:
    """Warm-up, the mix phase (every account, metered), then the ratio phase."""
    workers, threads = len(metered.worker_pids()), metered.env["GUNICORN_THREADS"]
    # Warm-up: imports, connection pools, key cache, PostgreSQL's buffers. Not
    # measured, but what the metered server admits in it counts in the usage check.
    warm = Client(metered.port, accounts, foods, args.concurrency, mix=MIX, seed=99).run_for(4)
    Client(plain.port, accounts, foods, args.concurrency, mix=MIX, seed=99).run_for(4)
    loadavg = {"before": loadkit.loadavg()}

    print(f"mix phase: {args.seconds:.0f} s, {args.concurrency} clients")
    mix = Client(metered.port, accounts, foods, args.concurrency, mix=MIX, seed=1)
    mix.run_for(args.seconds)
    loadavg["mix"] = loadkit.loadavg()
    ratio, seconds = _ratio_phase(args, metered, plain, accounts, foods)
    loadavg["end"] = loadkit.loadavg()
    return Phases(warm, mix.samples, ratio, seconds, loadavg, workers, threads)


def _ratio_phase(
    args: argparse.Namespace,
    metered: Gunicorn,
    plain: Gunicorn,
    accounts: list[Account],
    foods: list[str],
) -> tuple[dict[str, list[Sample]], dict[str, float]]:
    """The mix of the never-refused accounts to both servers, ``--rounds`` times, the
    order shuffled each round: the samples and seconds of each server."""
    never_refused = [a for a in accounts if a.label in ("head_chef", "executive_chef")]
    ratio: dict[str, list[Sample]] = {"metered": [], "unmetered": []}
    seconds: dict[str, float] = {"metered": 0.0, "unmetered": 0.0}
    for round_ in range(args.rounds):
        order = [("metered", metered), ("unmetered", plain)]
        random.shuffle(order)
        for name, server in order:
            client = Client(
                server.port, never_refused, foods, args.concurrency, mix=MIX, seed=10 + round_
            )
            t0 = time.monotonic()
            ratio[name] += client.run_for(args.ratio_seconds)
            seconds[name] += time.monotonic() - t0
        print(
            f"  ratio round {round_ + 1}: "
            f"metered {len(ratio['metered']) / seconds['metered']:.0f} req/s, "
            f"unmetered {len(ratio['unmetered']) / seconds['unmetered']:.0f} req/s"
        )
    return ratio, seconds


def _checks(metered: Gunicorn, accounts: list[Account], phases: Phases) -> Verdict:
    """The usage check (everything the metered server admitted, per account), no 500,
    nobody over quota; while the servers still run."""
    verdict = Verdict("load")
    seen = admitted_by_account(phases.warm + phases.mix + phases.ratio["metered"])
    mismatched = []
    for account in accounts:
        expected = seen[account.id]
        got = usage_count(metered.port, account.secrets[0])
        if got != expected:
            mismatched.append(
                f"account {account.id} ({account.label}): usage {got}, admitted {expected}"
            )
    total_admitted = sum(seen.values())
    verdict.check(
        "every account's /v1/usage request_count equals the requests seen admitted",
        not mismatched,
        "; ".join(mismatched[:5])
        or f"{len(accounts)} accounts, {total_admitted} admitted requests",
    )
    loadkit.no_500(verdict, phases.mix + phases.ratio["metered"] + phases.ratio["unmetered"])
    loadkit.quota_respected(verdict, accounts, seen)
    return verdict


def _report(
    args: argparse.Namespace,
    where: tuple[str, str, str],
    accounts: list[Account],
    phases: Phases,
    verdict: Verdict,
) -> list[str]:
    """The "## Load" section: the setup, the mix phase's tables, metering on vs off and
    the checks. ``where``: the code served (empty: this tree's), the database, Redis."""
    code, database, redis = where
    loadavg = phases.loadavg
    return [
        f"Run {machine()} (load average before the run {loadavg['before']}; after the mix "
        f"phase {loadavg['mix']}; at the end {loadavg['end']}). The client (Python threads) "
        "runs on the same 2 cores as the server, PostgreSQL and Redis, and other helpers' "
        "tests ran meanwhile, so the figures are pessimistic.",
        "",
        f"`bench/scripts/load.py{' --quick' if args.quick else ''}`: {code}gunicorn via "
        f"`gunicorn.conf.py` ({phases.workers} workers x {phases.threads} threads), {database} "
        f"({'SR28 only' if args.quick else 'full catalogue, 399,168 foods'}), {redis}, "
        f"{len(accounts)} accounts ({_tiers(accounts)}), {args.concurrency} concurrent "
        "keep-alive clients.",
        "",
        *_mix_tables(args, phases.mix),
        "",
        *_ratio_lines(args, phases),
        "",
        "Checks:",
        "",
        *verdict.markdown(),
    ]


def _mix_tables(args: argparse.Namespace, mix: list[Sample]) -> list[str]:
    """Latencies of each kind of request in the mix phase: every answer, then the 2xx
    and 304 answers alone."""
    return [
        f"**Mix phase** ({args.seconds:.0f} s, every account, metered server). Statuses: "
        f"{status_summary(mix)}.",
        "",
        *table(
            "kind",
            [latency_row(kind, [s for s in mix if s.kind == kind], args.seconds) for kind in KINDS]
            + [latency_row("**all**", mix, args.seconds)],
        ),
        "",
        "Latencies are of every answer of that kind, 429s included (a 429 is cheap: no "
        "catalogue query); the 200/304 answers alone:",
        "",
        *table(
            "kind (2xx/304 only)",
            [
                latency_row(
                    kind,
                    [s for s in mix if s.kind == kind and s.status in (200, 304)],
                    args.seconds,
                )
                for kind in SERVED_KINDS
            ],
        ),
    ]


def _ratio_lines(args: argparse.Namespace, phases: Phases) -> list[str]:
    """Metering on vs off: the table of both servers and the ratios."""
    ratio, seconds = phases.ratio, phases.seconds
    m_rate = len(ratio["metered"]) / seconds["metered"]
    u_rate = len(ratio["unmetered"]) / seconds["unmetered"]
    return [
        f"**Metering on vs off** ({args.rounds} rounds x {args.ratio_seconds:.0f} s per "
        "server, order shuffled each round; Head Chef and large Executive Chef accounts only, "
        "so no request is refused and both servers do the same work):",
        "",
        *table(
            "server",
            [
                latency_row("metered", ratio["metered"], seconds["metered"]),
                latency_row("`METERING_ENABLED=0`", ratio["unmetered"], seconds["unmetered"]),
            ],
        ),
        "",
        f"Throughput ratio metered / unmetered: **{m_rate / u_rate:.2f}**; p50 latency "
        f"ratio {_p(ratio['metered'], 50) / _p(ratio['unmetered'], 50):.2f}, p95 "
        f"{_p(ratio['metered'], 95) / _p(ratio['unmetered'], 95):.2f}.",
    ]


def _p(samples: list, q: float) -> float:
    return loadkit.percentile([s.latency for s in samples if s.status], q)


def _tiers(accounts: list) -> str:
    from collections import Counter

    counts = Counter(a.label for a in accounts)
    return ", ".join(f"{n} {label}" for label, n in counts.items())


def _workers() -> int:
    return int(os.environ.get("WEB_CONCURRENCY", "0")) or 2 * (os.cpu_count() or 1) + 1


def _threads() -> int:
    return int(os.environ.get("GUNICORN_THREADS", "4"))


if __name__ == "__main__":
    sys.exit(main())
