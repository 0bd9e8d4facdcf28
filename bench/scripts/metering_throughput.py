"""What does metering cost? (issue 4, Proof: benchmark)

Throughput of three endpoints served by the same gunicorn configuration, measured with
wrk in interleaved rounds (the order shuffled every round, so drift in the machine hits
all alike), medians reported:

- **metered**: GET /v1/foods/{id} with an API key (authentication through the shared key
  cache, one EVALSHA of the metering script, RateLimit headers);
- **unmetered**: the same request to a server with ``METERING_ENABLED=false``;
- **bare**: a bare DRF view reading the same food by primary key and rendering it the
  same way, with no authentication, permission or metering at all.

Targets: metered >= 80 % of unmetered and >= 70 % of bare on gunicorn + PostgreSQL +
Redis; metered >= 85 % of unmetered on the embedded default (SQLite, in-process meter,
one worker). The key belongs to an Executive Chef account with an unthrottled, huge
negotiated quota, so every request is admitted and metered in full (no 429 short cut).

Needs wrk (``apt-get install -y wrk``), PostgreSQL and Redis. Usage:

    .venv/bin/python bench/scripts/metering_throughput.py [--rounds 5] [--seconds 8]
        [--connections 32] [--workers 5] [--threads 4] [--only services|embedded]

Environment: ``BENCH_DATABASE_URL`` (default postgres://postgres@127.0.0.1:5432/
fs_metering_bench, created and migrated if missing), ``BENCH_REDIS_URL`` (default
redis://127.0.0.1:6379/5), ``BENCH_PORT`` (first of the ports used, default 8111). The
embedded run uses a SQLite file under /tmp/fs-metering-bench. The catalogue is the small
SR28 sample of tests/catalogue/data. Results: paste the printed table into
bench/RESULTS.md under "## Metering".
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
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ROOT / "bench" / "kits" / "servers"  # metering_settings, metering_urls
VAR = Path("/tmp/fs-metering-bench")
PG_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/fs_metering_bench"
)
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5")
FIRST_PORT = int(os.environ.get("BENCH_PORT", "8111"))
BENCH_EMAIL = "bench-metering@example.com"


def env_for(database_url: str, redis_url: str | None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        DATABASE_URL=database_url,
        FOODSERVICE_VAR_DIR=str(VAR),
        DJANGO_SETTINGS_MODULE="metering_settings",
        PYTHONPATH=f"{ROOT}{os.pathsep}{SERVERS}",
        LOG_LEVEL="WARNING",  # the same for every variant: no per-request log line
        GUNICORN_LOG_LEVEL="warning",
        GUNICORN_MAX_REQUESTS="0",
        **extra,
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def prepare(env: dict[str, str]) -> tuple[str, str, int]:
    """Migrate, load the sample catalogue, make the bench account and a fresh key.
    Returns (secret, food public id, food pk)."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    script = (
        "from accounts.models import User\n"
        "from accounts.services import account_create, account_set_tier\n"
        "from accounts.tiers import TierLimits\n"
        "from catalogue.importers.load import catalogue_load\n"
        "from catalogue.models import Food\n"
        "from keys.services import key_create, key_revoke\n"
        "from pathlib import Path\n"
        "if not Food.objects.exists():\n"
        "    catalogue_load(source='sr28', path=Path('tests/catalogue/data/sr28'))\n"
        f"user = User.objects.filter(email='{BENCH_EMAIL}').first()\n"
        f"account = user.account if user else account_create(email='{BENCH_EMAIL}')\n"
        "limits = TierLimits(quota=10**12, window='month', rate=None, burst=None)\n"
        "account = account_set_tier(account=account, tier='executive_chef', custom=limits)\n"
        "for key in account.keys.filter(revoked_at__isnull=True):\n"
        "    key_revoke(key=key)\n"
        "_, secret = key_create(account=account, label='bench')\n"
        "food = Food.objects.order_by('pk').first()\n"
        "print(secret, food.public_id, food.pk)\n"
    )
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    secret, public_id, pk = out[-3:]
    return secret, public_id, int(pk)


def ensure_pg_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def start(port: int, env: dict[str, str], workers: int, threads: int) -> subprocess.Popen:
    command = [sys.executable, "-m", "gunicorn", "foodservice.wsgi:application"]
    command += ["--bind", f"127.0.0.1:{port}", "--workers", str(workers)]
    command += ["--threads", str(threads)]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/market", timeout=1)
        except urllib.error.HTTPError:
            return process  # a 401: serving
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"gunicorn on port {port} did not start")


def wrk(
    url: str, seconds: int, connections: int, headers: dict[str, str], check: bool = True
) -> float:
    """Requests per second; fails on any response that is not 2xx (unless warming up)."""
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    out = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    if check and ("Non-2xx" in out or "Socket errors" in out):
        raise RuntimeError(f"errors while benchmarking {url}:\n{out}")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))


def run(variants: dict[str, tuple[str, dict[str, str]]], args: argparse.Namespace) -> dict:
    for url, headers in variants.values():  # warm-up: imports, caches, connections
        wrk(url, 3, args.connections, headers, check=False)
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for round_ in range(args.rounds):
        order = list(variants)
        random.shuffle(order)
        for name in order:
            url, headers = variants[name]
            samples[name].append(wrk(url, args.seconds, args.connections, headers))
        print(f"  round {round_ + 1}: " + ", ".join(f"{n} {samples[n][-1]:.0f}" for n in order))
    return {name: statistics.median(values) for name, values in samples.items()}


def measure(label: str, database_url: str, redis_url: str | None, args) -> dict:
    print(f"== {label}")
    base_env = env_for(database_url, redis_url)
    secret, public_id, pk = prepare(base_env)
    configs = {"metered": "true", "unmetered": "false"}
    processes, variants = [], {}
    try:
        for i, (name, enabled) in enumerate(configs.items()):
            port = FIRST_PORT + i + (0 if redis_url else 3)
            env = {**base_env, "METERING_ENABLED": enabled}
            processes.append(start(port, env, args.workers if redis_url else 1, args.threads))
            variants[name] = (
                f"http://127.0.0.1:{port}/v1/foods/{public_id}",
                {"X-API-Key": secret},
            )
        bare_port = FIRST_PORT + (0 if redis_url else 3)
        variants["bare"] = (f"http://127.0.0.1:{bare_port}/bench/bare-food/{pk}", {})
        return run(variants, args)
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=30)


def report(label: str, medians: dict, targets: dict[str, float]) -> str:
    lines = [f"**{label}** (medians, requests/s)", "", "| variant | req/s | metered as % |"]
    lines.append("|---|---|---|")
    for name, value in medians.items():
        share = "" if name == "metered" else f"{100 * medians['metered'] / value:.0f} %"
        target = f" (target >= {targets[name]:.0f} %)" if name in targets else ""
        lines.append(f"| {name} | {value:.0f} | {share}{target} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=5)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--only", choices=("services", "embedded"))
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: apt-get install -y wrk")
    VAR.mkdir(parents=True, exist_ok=True)
    out = []
    if args.only != "embedded":
        ensure_pg_database(PG_URL)
        medians = measure("gunicorn + PostgreSQL + Redis", PG_URL, REDIS_URL, args)
        out.append(
            report(
                f"gunicorn ({args.workers} workers x {args.threads} threads) + PostgreSQL + Redis",
                medians,
                {"unmetered": 80, "bare": 70},
            )
        )
    if args.only != "services":
        sqlite_url = f"sqlite:///{VAR / 'db.sqlite3'}"
        medians = measure("embedded default", sqlite_url, None, args)
        out.append(
            report(
                f"embedded default: gunicorn (1 worker x {args.threads} threads) + SQLite + "
                "in-process meter",
                medians,
                {"unmetered": 85},
            )
        )
    print()
    print("\n\n".join(out))


if __name__ == "__main__":
    main()
