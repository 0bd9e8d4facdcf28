"""Reads near the machine's floor (issue 13): how close metered reads come to a raw read.

One gunicorn (``gunicorn.conf.py``, production settings: request logging on at INFO,
as deployed) serves, in one run, interleaved rounds (order shuffled every round) of:

- ``record``: metered ``GET /v1/foods/{id}`` with a Head Chef key;
- ``search``: metered ``GET /v1/foods?q=cheese`` (page 1, default page size);
- ``filtered``: metered ``GET /v1/foods?q=cheese&protein_min=20``;
- ``pgraw``: a plain Django view (no DRF, no auth) reading the same record's response
  bytes from a one-row table by primary key with one raw query (bench/kits/servers/reads_urls.py);
- ``floor``: the same bytes from memory.

Targets: record >= 50 % of pgraw, search >= 40 %, filtered >= 25 %.

``--spread N`` (issue 28, point 5) measures real traffic instead of one hot URL:
``record`` reads one of N random foods and ``search`` one of ~1,150 distinct one- and
two-word queries (the first word, or two, of random SR28 names), picked at random per
request by a wrk script; most requests then miss the workers' memory. A spread run
first reads every spread path once, in order (the "first pass", reported on its own:
every record a first read, the cold path), so that the rounds measure the traffic a
running service sees rather than how fast its copies fill. Targets there:
record >= 80 % of pgraw, search >= 35 %. A spread run adds ``pgspread``, the records'
own floor: the same random foods' stored bytes read by a plain view with one raw query
(``/bench/pgraw/<id>``), where ``pgraw`` reads one hot row; both ratios are printed.
Measured with wrk (``apt-get install -y wrk``), medians of the rounds. Around each wrk
run it also reads the CPU each part spent (gunicorn's master and workers, every
PostgreSQL process with the backends its postmaster reaped, the throwaway redis-server,
wrk) and prints each variant's CPU per request and its total as a share of the floors'
(issue 41.2): on a shared machine a neighbour moves the rates more than what a request
costs. pgspread's stored bytes are decompressed by its view (renderings are stored
compressed). Before measuring
it checks that the record, pgraw, pgspread and floor bodies are byte-identical and that
no answer is an error.

    .venv/bin/python bench/scripts/reads.py --database-url postgres://postgres@127.0.0.1:5432/DB
        [--rounds 5] [--seconds 6] [--connections 16] [--workers N] [--threads N]
        [--worker-class gthread|sync] [--food sr28-01001] [--no-write]
        [--server-root /tmp/base]   # serve a baseline checkout's code instead
        [--spread 20000] [--server-env CATALOGUE_VERSION_SECONDS=0]

The database must hold the full catalogue migrated with this code (docs/operations.md,
"Benchmarks"); a throwaway redis-server is started and stopped. Figures go to
bench/RESULTS.md "## Reads" unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from bench.kits import loadkit
from bench.kits.loadkit import (
    LOCAL,
    ROOT,
    Gunicorn,
    ThrowawayRedis,
    base_env,
    cleanup,
    get,
    make_accounts,
)
from bench.kits.spread import first_pass, spread_paths, spread_scripts

TARGETS = {"record": 50, "search": 40, "filtered": 25}
SPREAD_TARGETS = {"record": 80, "search": 35, "filtered": 25}
SERVERS = ROOT / "bench" / "kits" / "servers"  # reads_settings, reads_urls


def wrk(
    url: str, seconds: float, connections: int, headers: dict[str, str], script: str = ""
) -> dict:
    """One wrk run (with the Lua ``script``, if any): requests/s and latency percentiles
    (ms); raises on any error."""
    command = [
        "wrk",
        *(["-s", script] if script else []),
        "-t1",
        f"-c{connections}",
        f"-d{int(seconds)}s",
        "--timeout",
        "10s",
        "--latency",
    ]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    out = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        raise RuntimeError(f"errors while benchmarking {url}:\n{out}")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    latency = {}
    for q in ("50", "99"):
        value, unit = re.search(rf"\s{q}%\s+([\d.]+)(us|ms|s)\b", out).groups()
        latency[q] = float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
    return {"rate": rate, "p50": latency["50"], "p99": latency["99"], "requests": requests}


TICKS = os.sysconf("SC_CLK_TCK")
CPU_PARTS = ("web", "postgres", "redis", "wrk")


def _ticks(pid: int, *, reaped: bool = False) -> int:
    """User + system clock ticks of process ``pid`` (all its threads), 0 once gone;
    with ``reaped``, its exited children's too (a server whose connections come and go
    keeps their CPU there)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return sum(int(v) for v in fields[11 : 15 if reaped else 13])


def _postgres_ticks() -> int:
    """Every PostgreSQL process's ticks, the postmaster's reaped children included: a
    backend that exits between two readings is not lost."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != "postgres":
                continue
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            postmaster = (Path(f"/proc/{parent}") / "comm").read_text().strip() != "postgres"
        except (OSError, ValueError, IndexError):
            continue
        total += _ticks(int(entry.name), reaped=postmaster)
    return total


class CpuMeter:
    """CPU seconds spent by each part of the machine's work around a wrk run: the
    gunicorn master and workers (``web``), every PostgreSQL process, the throwaway
    redis-server and wrk itself (this process's finished children)."""

    def __init__(self, server: Gunicorn, redis: ThrowawayRedis) -> None:
        self.server, self.redis = server, redis

    def snapshot(self) -> dict[str, float]:
        web = [self.server.process.pid, *self.server.worker_pids()] if self.server.process else []
        children = os.times()
        return {
            "web": sum(map(_ticks, web)) / TICKS,
            "postgres": _postgres_ticks() / TICKS,
            "redis": (_ticks(self.redis.process.pid) if self.redis.process else 0) / TICKS,
            "wrk": children.children_user + children.children_system,
        }

    def per_request(self, before: dict[str, float], requests: int) -> dict[str, float]:
        """CPU ms per request of each part since ``before``."""
        after = self.snapshot()
        return {part: 1000 * (after[part] - before[part]) / max(1, requests) for part in before}


def prepare(env: dict[str, str], food: str) -> str:
    """Migrate, make a fresh Head Chef account and key, and put the record's response
    bytes into the one-row table of the pgraw view. Returns the key's secret."""
    loadkit.manage(env, "migrate", "--noinput", "-v0")
    accounts, _ = make_accounts(env, [("head_chef", None, 1, "head_chef")], foods=1)
    return accounts[0].secrets[0]


def store_raw(database_url: str, body: bytes) -> None:
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_raw_record (id int PRIMARY KEY, body bytea)")
        conn.execute(
            "INSERT INTO bench_raw_record VALUES (1, %s) "
            "ON CONFLICT (id) DO UPDATE SET body = excluded.body",
            (body,),
        )


Variants = dict[str, tuple[str, dict[str, str]]]  # name -> (path, headers)


@dataclass
class Measured:
    """What the rounds measured: each variant's medians (``rate`` req/s, ``p50`` and
    ``p99`` ms), the spread's first-pass rates, and the load averages around them."""

    medians: dict[str, dict[str, float]]
    first_rates: dict[str, float]
    loadavg: tuple[str, str]  # before and after the rounds
    cpu: dict[str, dict[str, float]]  # each variant's median CPU ms a request, by part


def main() -> int:
    args = _arguments()
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: apt-get install -y wrk")
    if not args.database_url:
        sys.exit("--database-url (or BENCH_DATABASE_URL) is required")
    assert urlsplit(args.database_url).hostname in (LOCAL, "localhost")

    redis = ThrowawayRedis()
    redis.start()
    env = _server_env(args, redis.url)
    try:
        secret = prepare(env, args.food)
    except BaseException:
        redis.stop()
        raise
    # ``Gunicorn`` needs explicit counts; 0 means "what gunicorn.conf.py would choose".
    workers = args.workers or _conf_default("workers", env)
    threads = args.threads or _conf_default("threads", env)
    root = Path(args.server_root).resolve() if args.server_root else ROOT
    server = Gunicorn(env, port=args.port, workers=workers, threads=threads, root=root)
    key = {"X-API-Key": secret}
    variants: Variants = {
        "record": (f"/v1/foods/{args.food}", key),
        "search": ("/v1/foods?q=cheese", key),
        "filtered": ("/v1/foods?q=cheese&protein_min=20", key),
        "pgraw": ("/bench/pgraw", {}),
        "floor": ("/bench/floor", {}),
    }
    scripts: dict[str, str] = {}
    spread: dict[str, list[str]] = {}
    if args.spread:
        spread = spread_paths(args.database_url, args.spread)
        scripts = spread_scripts(spread, Path("/tmp"))
        # The records' own floor: the same random foods' stored bytes, one raw query.
        variants["pgspread"] = (f"/bench/pgraw/{args.food}", {})
    with cleanup(server, redis):
        server.start()
        body = _check_answers(args, variants)
        measured = _measure(args, variants, spread, scripts, CpuMeter(server, redis))
        worker_class = _conf_default("worker_class", server.env)
    gunicorn = f"{worker_class}, {workers} workers x {threads} threads"
    rows, verdicts = _rows(measured.medians, SPREAD_TARGETS if args.spread else TARGETS)
    text = "\n".join(_report(args, gunicorn, len(body), measured, rows))
    print()
    print(text)
    if not args.no_write:
        loadkit.write_section("## Reads", text)
    return 0 if all(verdicts) else 1


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=6)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=0, help="default: gunicorn.conf.py's")
    parser.add_argument("--threads", type=int, default=0, help="default: gunicorn.conf.py's")
    parser.add_argument("--worker-class", default="", help="default: gunicorn.conf.py's")
    parser.add_argument("--food", default="sr28-01001")
    parser.add_argument("--port", type=int, default=8171)
    parser.add_argument("--label", default="", help="a note for the results")
    parser.add_argument(
        "--server-root",
        help="serve another checkout's code (a baseline) with this tree's reference views",
    )
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting for the server (CATALOGUE_VERSION_SECONDS=0: no worker memory)",
    )
    parser.add_argument(
        "--spread", type=int, default=0, help="records of N random foods, ~1,150 queries"
    )
    parser.add_argument(
        "--no-first-pass",
        action="store_true",
        help="spread: no pass reading every path once first (issue 41: cold traffic)",
    )
    return parser.parse_args()


def _server_env(args: argparse.Namespace, redis_url: str) -> dict[str, str]:
    """The server's environment: production logging, this tree's reference views
    (bench/kits/servers/), ``--worker-class`` and ``--server-env``."""
    extra = {
        "DJANGO_SETTINGS_MODULE": "reads_settings",
        "PYTHONPATH": f"{ROOT}{os.pathsep}{SERVERS}",
        "LOG_LEVEL": "INFO",  # production: one request log line per request
        "GUNICORN_MAX_REQUESTS": "0",
    }
    if args.worker_class:
        extra["GUNICORN_WORKER_CLASS"] = args.worker_class
    extra |= dict(item.split("=", 1) for item in args.server_env)
    return base_env(database_url=args.database_url, redis_url=redis_url, **extra)


def _check_answers(args: argparse.Namespace, variants: Variants) -> bytes:
    """Store the record's bytes for the pgraw view, then check that every variant answers
    200 and that the references serve those very bytes; returns them."""
    status, _, body = get(args.port, variants["record"][0], variants["record"][1])
    if status != 200:
        raise RuntimeError(f"the record answered {status}: {body[:300]!r}")
    store_raw(args.database_url, body)
    for name, (path, headers) in variants.items():
        status, _, got = get(args.port, path, headers)
        if status != 200:
            raise RuntimeError(f"{name} answered {status}: {got[:300]!r}")
        if name in ("pgraw", "pgspread", "floor") and got != body:
            raise RuntimeError(f"{name} does not serve the record's bytes")
    return body


def _measure(
    args: argparse.Namespace,
    variants: Variants,
    spread: dict[str, list[str]],
    scripts: dict[str, str],
    cpu: CpuMeter,
) -> Measured:
    """The spread's first pass, a warm-up, then ``--rounds`` interleaved rounds of wrk
    (the order shuffled every round); the medians of the rounds."""
    base = f"http://{LOCAL}:{args.port}"
    first_rates: dict[str, float] = {}
    for name, paths in spread.items():  # every spread path once, before the rounds
        if args.no_first_pass:
            break
        headers = variants[name][1]
        first_rates[name] = first_pass(args.port, paths, headers, args.connections)
        print(f"  first pass: {name} {first_rates[name]:.0f} req/s", flush=True)
    for name, (path, headers) in variants.items():  # warm-up: imports, plans, buffers
        if args.no_first_pass and name in spread:
            continue  # cold: the rounds are the spread's first reads
        wrk(base + path, 2, args.connections, headers, scripts.get(name, ""))
    load_before = loadkit.loadavg()
    samples: dict[str, list[dict]] = {name: [] for name in variants}
    for round_ in range(args.rounds):
        order = list(variants)
        random.shuffle(order)
        for name in order:
            path, headers = variants[name]
            before = cpu.snapshot()
            sample = wrk(
                base + path, args.seconds, args.connections, headers, scripts.get(name, "")
            )
            sample |= cpu.per_request(before, sample["requests"])
            samples[name].append(sample)
        print(
            f"  round {round_ + 1}: "
            + ", ".join(f"{n} {samples[n][-1]['rate']:.0f}" for n in order),
            flush=True,
        )
    medians = {
        name: {k: statistics.median(s[k] for s in runs) for k in ("rate", "p50", "p99")}
        for name, runs in samples.items()
    }
    cpu_ms = {
        name: {k: statistics.median(s[k] for s in runs) for k in CPU_PARTS}
        | {"total": statistics.median(sum(s[k] for k in CPU_PARTS) for s in runs)}
        for name, runs in samples.items()
    }
    return Measured(medians, first_rates, (load_before, loadkit.loadavg()), cpu_ms)


def _rows(
    medians: dict[str, dict[str, float]], targets: dict[str, int]
) -> tuple[list[str], list[bool]]:
    """The table's rows (each variant as a share of pgraw, and of pgspread when
    measured) and whether each target was met."""
    pgraw = medians["pgraw"]["rate"]
    spread_floor = medians.get("pgspread", {}).get("rate")
    rows = []
    verdicts = []
    for name, m in medians.items():
        share = 100 * m["rate"] / pgraw
        target = targets.get(name)
        mark = ""
        if target is not None:
            ok = share >= target
            verdicts.append(ok)
            mark = f" (target >= {target} %: {'met' if ok else '**not met**'})"
        of_spread = f"{100 * m['rate'] / spread_floor:.0f} %" if spread_floor else ""
        rows.append(
            f"| {name} | {m['rate']:.0f} | {share:.0f} %{mark} | "
            + (f"{of_spread} | " if spread_floor else "")
            + f"{m['p50']:.2f} | {m['p99']:.2f} |"
        )
    return rows, verdicts


def _report(
    args: argparse.Namespace, gunicorn: str, record_bytes: int, measured: Measured, rows: list[str]
) -> list[str]:
    """The "## Reads" section. ``gunicorn``: its worker class, workers and threads."""
    load_before, load_end = measured.loadavg
    spread_floor = measured.medians.get("pgspread", {}).get("rate")
    lines = [
        f"Run {loadkit.machine()}; load average before the rounds {load_before}, after "
        f"{load_end}. wrk (1 thread, {args.connections} connections) runs on the same 2 "
        "cores as gunicorn, PostgreSQL and Redis.",
        "",
        f"`bench/scripts/reads.py`{' — ' + args.label if args.label else ''}: "
        f"{'code of ' + str(Path(args.server_root).resolve()) + ', ' if args.server_root else ''}"
        f"{''.join(f'`{item}`, ' for item in args.server_env)}one gunicorn "
        f"({gunicorn}), request logging on (INFO), "
        f"database `{urlsplit(args.database_url).path.lstrip('/')}`, a throwaway "
        f"redis-server, record `{args.food}` ({record_bytes:,} bytes). {args.rounds} "
        f"interleaved rounds x {args.seconds:.0f} s, medians"
        + (
            f"; spread: records of {args.spread:,} random foods, searches of ~1,150 queries"
            if args.spread
            else ""
        )
        + ":",
        "",
        (
            "| variant | req/s | % of pgraw | % of pgspread | p50 ms | p99 ms |\n"
            "|---|---|---|---|---|---|"
            if spread_floor
            else "| variant | req/s | % of pgraw | p50 ms | p99 ms |\n|---|---|---|---|---|"
        ),
        *rows,
    ]
    return lines + _cpu_lines(measured) + _first_pass_lines(measured.first_rates)


def _cpu_lines(measured: Measured) -> list[str]:
    """CPU ms per request by part, medians of the rounds, and each variant's total as a
    share of pgraw's and pgspread's: the ratio the rates give, read from CPU instead
    (a noisy neighbour moves the rates more than the CPU a request costs)."""
    cpu = measured.cpu
    floors = [name for name in ("pgraw", "pgspread") if name in cpu]
    head = " | ".join(f"{part} ms" for part in CPU_PARTS)
    lines = [
        "",
        "CPU per request (ms, medians of the rounds; a share is the floor's total CPU over "
        "the variant's):",
        "",
        f"| variant | {head} | total ms | " + " | ".join(f"share of {f}" for f in floors) + " |",
        "|---" * (len(CPU_PARTS) + 2 + len(floors)) + "|",
    ]
    for name, parts in cpu.items():
        shares = " | ".join(f"{100 * cpu[f]['total'] / parts['total']:.0f} %" for f in floors)
        values = " | ".join(f"{parts[part]:.3f}" for part in CPU_PARTS)
        lines.append(f"| {name} | {values} | {parts['total']:.3f} | {shares} |")
    return lines


def _first_pass_lines(first_rates: dict[str, float]) -> list[str]:
    if not first_rates:
        return []
    return [
        "",
        "First pass (before the rounds: every spread path read once, in order, by a "
        "Python client on 16 keep-alive connections, so every record is a first "
        "read): "
        + ", ".join(f"{name} {rate:.0f} req/s" for name, rate in first_rates.items())
        + (
            f"; record {100 * first_rates['record'] / first_rates['pgspread']:.0f} % of "
            "pgspread's first pass."
            if first_rates.get("pgspread")
            else "."
        ),
    ]


def _conf_default(name: str, env: dict[str, str]) -> object:
    """What gunicorn.conf.py sets ``name`` to in ``env``."""
    script = f"import runpy; print(runpy.run_path('gunicorn.conf.py')[{name!r}])"
    env = {**env, "PROMETHEUS_MULTIPROC_DIR": env.get("PROMETHEUS_MULTIPROC_DIR", "/tmp/fs-reads")}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    value = out.stdout.strip().splitlines()[-1]
    return int(value) if value.isdigit() else value


if __name__ == "__main__":
    sys.exit(main())
