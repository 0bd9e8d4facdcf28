"""What one request costs each part, measured (issue 30.5): the figures of docs/scaling.md.

One gunicorn (``gunicorn.conf.py``, request logging on at INFO as deployed), a throwaway
redis-server, and the given PostgreSQL database (the full catalogue, migrated with this
code). For each kind of request the script sends ``--requests`` of them (4 client
threads, keep-alive) after a warm-up and reads, before and after, the CPU time
(``/proc/<pid>/stat``: user + system) of

- **web**: the gunicorn master and its workers;
- **postgres**: the PostgreSQL backends connected to the database (the workers keep
  their connections, ``CONN_MAX_AGE``), found in ``pg_stat_activity``;
- **redis**: the redis-server.

Divided by the requests served, that is each part's CPU per request. Kinds:

- ``record hit``: metered ``GET /v1/foods/{id}`` of one food, its rendering stored;
- ``record miss``: a different food each request, its stored rendering deleted first
  (rendered and stored again by the request; run on a copy of the catalogue);
- ``search same``: metered ``GET /v1/foods?q=cheese`` again and again (what the
  service keeps of a repeated search answers it);
- ``search new``: a different word of the catalogue's vocabulary each request;
- ``typo new``: a different misspelt word each request (two letters swapped: the typo
  fallback's look-ups, then the corrected search).

Then Redis alone: ``redis-benchmark`` of ``EVALSHA`` of the real consume script
(``metering/lua/consume.lua``, loaded from the file, steady-state arguments of a Head
Chef key) and of ``GET`` on the same server, and the script's own cost per call from
``INFO commandstats`` (``usec_per_call`` of ``evalsha``) after the service's requests.

    .venv/bin/python bench/scripts/capacity.py --database-url postgres://postgres@127.0.0.1:5432/DB
        [--requests 400] [--workers 2] [--threads 4] [--no-write]

Figures go to bench/RESULTS.md "## Capacity" unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from bench.kits import loadkit
from bench.kits.loadkit import (
    LOCAL,
    ROOT,
    Gunicorn,
    ThrowawayRedis,
    base_env,
    cleanup,
    make_accounts,
)

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of ``pids`` (those that still exist)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return total / TICKS


def backends(database_url: str) -> list[int]:
    import psycopg

    name = urlsplit(database_url).path.lstrip("/")
    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        ).fetchall()
    return [pid for (pid,) in rows]


def send(port: int, paths: list[str], headers: dict[str, str], clients: int = 4) -> list[int]:
    """GET every path (split over ``clients`` keep-alive connections); the statuses."""
    statuses: list[int] = []
    lock = threading.Lock()

    def client(share: list[str]) -> None:
        conn = http.client.HTTPConnection(LOCAL, port, timeout=30)
        for path in share:
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            response.read()
            with lock:
                statuses.append(response.status)
        conn.close()

    threads = [threading.Thread(target=client, args=(paths[i::clients],)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def catalogue_words(database_url: str, count: int) -> list[str]:
    """``count`` distinct words of the catalogue's vocabulary held by 20-5,000 foods
    (real words of real names, so every search is a new one: no cache of any kind
    can answer it)."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT word FROM catalogue_word WHERE foods BETWEEN 20 AND 5000"
            " AND word ~ '^[a-z]{5,}$' ORDER BY md5(word || now()::text) LIMIT %s",
            (count,),
        ).fetchall()
    return [word for (word,) in rows]


def misspelt(word: str) -> str:
    """The word with its two middle letters swapped (a typing slip: "chesee")."""
    i = len(word) // 2
    return word[: i - 1] + word[i] + word[i - 1] + word[i + 1 :]


def us_foods(database_url: str, count: int) -> list[tuple[int, str]]:
    """``count`` random foods of market US: their ids and public ids."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT id, public_id FROM catalogue_food WHERE market_id = 'US'"
            " ORDER BY md5(id::text || now()::text) LIMIT %s",
            (count,),
        ).fetchall()
    return [(food_id, public_id) for food_id, public_id in rows]


def unrendered_foods(database_url: str, count: int) -> list[str]:
    """``count`` foods of market US whose stored renderings are deleted here (the
    loader renders every food), so their next request renders them: a miss. Run on a
    copy of the catalogue; the requests store the renderings again."""
    import psycopg

    foods = us_foods(database_url, count)
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            "DELETE FROM catalogue_foodrendering WHERE food_id = ANY(%s)", ([i for i, _ in foods],)
        )
    return [public_id for _, public_id in foods]


def redis_benchmark(port: int, *command: str, requests: int = 100_000) -> float:
    out = subprocess.run(
        [
            "redis-benchmark",
            "-h",
            LOCAL,
            "-p",
            str(port),
            "-n",
            str(requests),
            "-c",
            "16",
            "-q",
            *command,
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    return float(re.findall(r"([\d.]+) requests per second", out)[-1])


def evalsha_stats(port: int) -> tuple[int, float]:
    out = subprocess.run(
        ["redis-cli", "-h", LOCAL, "-p", str(port), "info", "commandstats"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    match = re.search(r"cmdstat_evalsha:calls=(\d+),usec=\d+,usec_per_call=([\d.]+)", out)
    return (int(match[1]), float(match[2])) if match else (0, 0.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL"))
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--port", type=int, default=8173)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    if not args.database_url:
        sys.exit("--database-url (or BENCH_DATABASE_URL) is required")
    assert urlsplit(args.database_url).hostname in (LOCAL, "localhost")

    redis = ThrowawayRedis()
    redis.start()
    env = base_env(
        database_url=args.database_url,
        redis_url=redis.url,
        LOG_LEVEL="INFO",
        GUNICORN_MAX_REQUESTS="0",
    )
    server = Gunicorn(env, port=args.port, workers=args.workers, threads=args.threads)
    n = args.requests
    results: dict[str, dict[str, float]] = {}
    with cleanup(server, redis):
        loadkit.manage(env, "migrate", "--noinput", "-v0")
        accounts, foods = make_accounts(env, [("head_chef", None, 1, "capacity")], foods=50)
        key = {"X-API-Key": accounts[0].secrets[0]}
        fresh = unrendered_foods(args.database_url, n + 20)
        words = catalogue_words(args.database_url, 2 * n + 20)
        server.start()
        kinds, warm = _paths(n, foods[0], fresh, words)
        send(args.port, warm * 4, key)  # imports, plans, connections
        load_before = loadkit.loadavg()
        for name, paths in kinds.items():
            results[name] = _cost(name, paths, port=args.port, key=key, server=server,
                                  redis=redis, database_url=args.database_url)  # fmt: skip
        calls, usec_per_call = evalsha_stats(redis.port)
        load_end = loadkit.loadavg()
        evalsha_rate, get_rate = _redis_alone(redis.port, accounts[0])

    redis_figures = (evalsha_rate, get_rate, calls, usec_per_call)
    text = "\n".join(_report(args, results, (load_before, load_end), redis_figures))
    print()
    print(text)
    if not args.no_write:
        loadkit.write_section("## Capacity", text)
    return 0


def _report(
    args: argparse.Namespace,
    results: dict[str, dict[str, float]],
    loadavg: tuple[str, str],
    redis_figures: tuple[float, float, int, float],
) -> list[str]:
    """The "## Capacity" section. ``redis_figures``: EVALSHA and GET calls per second,
    and the service's EVALSHA calls and microseconds per call."""
    evalsha_rate, get_rate, calls, usec_per_call = redis_figures
    n = args.requests
    rows = [
        f"| {name} | {r['web']:.2f} | {r['pg']:.2f} | {r['redis']:.3f} | {r['rate']:.0f} |"
        for name, r in results.items()
    ]
    return [
        f"Run {loadkit.machine()}; load average before {loadavg[0]}, after {loadavg[1]}. "
        "The client, gunicorn, PostgreSQL and Redis share the machine's cores.",
        "",
        f"`bench/scripts/capacity.py`: one gunicorn ({args.workers} workers x {args.threads} "
        f"threads, request logging at INFO), database "
        f"`{urlsplit(args.database_url).path.lstrip('/')}` (full catalogue), a throwaway "
        f"redis-server; {n} requests of each kind from 4 keep-alive clients, metered "
        "with a Head Chef key. CPU per request (user + system, from /proc) of each "
        "part:",
        "",
        "| kind | web ms | PostgreSQL ms | Redis ms | req/s (this run, all parts on 2 cores) |",
        "|---|---|---|---|---|",
        *rows,
        "",
        f"Redis alone (`redis-benchmark`, 16 clients, 100,000 calls): `EVALSHA` of "
        f"`metering/lua/consume.lua` with a steady-state consume's arguments "
        f"**{evalsha_rate:,.0f} calls/s**; `GET` **{get_rate:,.0f} calls/s** (ratio "
        f"{get_rate / evalsha_rate:.2f}). The script's own cost inside Redis "
        f"(`INFO commandstats`, the service's {calls:,} calls above): "
        f"**{usec_per_call:.2f} us per call**.",
    ]


def _paths(
    n: int, hit: str, fresh: list[str], words: list[str]
) -> tuple[dict[str, list[str]], list[str]]:
    """The ``n`` paths of each kind (module docstring; ``hit``: the food read again and
    again), and the warm-up's paths (the first 20 fresh foods and words, which the
    kinds leave out)."""
    kinds = {
        "record hit": [f"/v1/foods/{hit}"] * n,
        "record miss": [f"/v1/foods/{food}" for food in fresh[20 : 20 + n]],
        "search same": ["/v1/foods?q=cheese"] * n,
        "search new": [f"/v1/foods?q={quote(w)}" for w in words[20 : 20 + n]],
        "typo new": [f"/v1/foods?q={quote(misspelt(w))}" for w in words[20 + n :]],
    }
    warm = [f"/v1/foods/{hit}", "/v1/foods?q=cheese", "/v1/foods?q=chese"]
    warm += [f"/v1/foods?q={w}" for w in words[:10]]
    warm += [f"/v1/foods?q={misspelt(w)}" for w in words[10:20]]
    warm += [f"/v1/foods/{food}" for food in fresh[:20]]
    return kinds, warm


def _cost(
    name: str,
    paths: list[str],
    *,
    port: int,
    key: dict[str, str],
    server: Gunicorn,
    redis: ThrowawayRedis,
    database_url: str,
) -> dict[str, float]:
    """Send ``paths``; each part's CPU milliseconds per request (``web``, ``pg``,
    ``redis``) and the requests per second. Raises unless every answer is a 200."""
    web = [server.process.pid, *server.worker_pids()]
    pg = backends(database_url)
    redis_pid = [redis.process.pid]
    before = (cpu_seconds(web), cpu_seconds(pg), cpu_seconds(redis_pid))
    started = time.monotonic()
    statuses = send(port, paths, key)
    elapsed = time.monotonic() - started
    after = (cpu_seconds(web), cpu_seconds(pg), cpu_seconds(redis_pid))
    bad = [s for s in statuses if s != 200]
    if bad:
        raise RuntimeError(f"{name}: {len(bad)} answers were not 200: {set(bad)}")
    web_ms, pg_ms, redis_ms = (
        1000 * (a - b) / len(paths) for a, b in zip(after, before, strict=True)
    )
    print(f"  {name}: web {web_ms:.2f} ms, pg {pg_ms:.2f}, redis {redis_ms:.3f}", flush=True)
    return {"web": web_ms, "pg": pg_ms, "redis": redis_ms, "rate": len(paths) / elapsed}


def _redis_alone(port: int, account: loadkit.Account) -> tuple[float, float]:
    """Calls per second of ``EVALSHA`` of the real consume script with a steady-state
    consume's arguments (``account``'s Head Chef key), and of ``GET``."""
    sha = subprocess.run(
        ["redis-cli", "-h", LOCAL, "-p", str(port), "script", "load",
         (ROOT / "metering" / "lua" / "consume.lua").read_text()],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    state = f"fs:meter:{{a{account.id}}}"
    epoch = f"fs:epoch:{{a{account.id}}}"
    now_us = str(int(time.time() * 1_000_000))
    consume = ["EVALSHA", sha, "2", state, epoch, "consume", now_us, str(10**12)]
    consume += ["-1", "0", "0", "3600", str(account.key_ids[0]), "0", ""]
    return redis_benchmark(port, *consume), redis_benchmark(port, "GET", "fs:capacity:probe")


if __name__ == "__main__":
    sys.exit(main())
