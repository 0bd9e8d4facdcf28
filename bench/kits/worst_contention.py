"""The contention phase of bench/scripts/search_worst.py (issue 36.2): what a Sous Chef sending
hostile inputs within its own burst limit does to another account's search latency.

One gunicorn as in production (gunicorn.conf.py: 2 workers x 4 threads here), the Redis
meter on a throwaway key prefix, the worker memory off so every search computes. A Head
Chef key searches ordinary queries one after another, alone and, alternating ``ROUNDS``
times, while ``ATTACKERS`` threads of a Sous Chef key send the hostile cases
(bench/kits/worst_inputs.py) at ``rate`` requests a second in all (the tier allows 10/s)."""

from __future__ import annotations

import http.client
import itertools
import json
import random
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

from bench.kits.loadkit import (
    Account,
    Gunicorn,
    base_env,
    make_accounts,
    percentile,
    prepare_database,
)
from bench.kits.worst_inputs import CASES, Case
from tests.support.engines import LOCAL, free_port

ATTACKERS = 8
ROUNDS = 2
VICTIM_QUERIES = [
    "chicken breast", "apple", "greek yogurt", "brown rice", "cheddar cheese", "orange juice",
    "whole milk", "peanut butter", "salmon", "broccoli", "banana", "olive oil", "white bread",
    "ground beef", "black beans", "oatmeal", "spinach", "sweet potato", "almonds", "tofu",
]  # fmt: skip


def contention(database_url: str, *, root: Path, seconds: float, rate: float) -> list[str]:
    """Markdown lines: the victim's latency alone and under attack, and their ratio."""
    env = base_env(
        database_url=database_url,
        redis_url="redis://127.0.0.1:6379/2",
        REDIS_KEY_PREFIX=f"fs-worst-{random.randrange(10**9)}",
        CATALOGUE_VERSION_SECONDS="0",
    )
    prepare_database(env, catalogue="keep")
    plan = [("head_chef", None, 1, "victim"), ("sous_chef", None, 1, "attacker")]
    (victim, attacker), _ = make_accounts(env, plan, foods=0)
    server = Gunicorn(env, port=free_port(), workers=2, threads=4, root=root).start()
    alone: list[float] = []
    attacked: list[float] = []
    seen: Counter[int] = Counter()
    try:
        for _ in range(ROUNDS):  # alternating, so the machine's drift falls on both
            alone += _victim(server.port, victim.secrets[0], seconds / ROUNDS)
            attacked += _under_attack(server.port, victim, attacker, seconds / ROUNDS, rate, seen)
    finally:
        server.stop()
    return _report(alone, attacked, seen, rate)


def _under_attack(
    port: int, victim: Account, attacker: Account, seconds: float, rate: float, seen: Counter[int]
) -> list[float]:
    """The victim's searches while ``ATTACKERS`` threads send the hostile cases."""
    stop = threading.Event()
    threads = [
        threading.Thread(target=_attack, args=(port, attacker.secrets[0], i, rate, stop, seen))
        for i in range(ATTACKERS)
    ]
    for thread in threads:
        thread.start()
    try:
        return _victim(port, victim.secrets[0], seconds)
    finally:
        stop.set()
        for thread in threads:
            thread.join()


def _victim(port: int, secret: str, seconds: float) -> list[float]:
    """Milliseconds of each ordinary search, one after another for ``seconds``."""
    connection = http.client.HTTPConnection(LOCAL, port, timeout=60)
    times: list[float] = []
    deadline = time.monotonic() + seconds
    for n in itertools.count():
        if time.monotonic() >= deadline:
            break
        q = VICTIM_QUERIES[n % len(VICTIM_QUERIES)]
        path = "/v1/foods?" + urlencode({"q": q, "page": n // len(VICTIM_QUERIES) % 5 + 1})
        start = time.perf_counter()
        connection.request("GET", path, headers={"X-API-Key": secret})
        connection.getresponse().read()
        times.append((time.perf_counter() - start) * 1000)
    connection.close()
    return times


def _attack(
    port: int, secret: str, index: int, rate: float, stop: threading.Event, seen: Counter[int]
) -> None:
    """Thread ``index`` of ``ATTACKERS``: hostile cases at ``rate / ATTACKERS`` a second."""
    hostile = [case for case in CASES if not case.ordinary]
    connection = http.client.HTTPConnection(LOCAL, port, timeout=120)
    gap = ATTACKERS / rate
    next_at = time.monotonic() + index / rate
    for n in itertools.count(index):
        if stop.is_set():
            break
        time.sleep(max(0.0, next_at - time.monotonic()))
        next_at += gap
        status = _send(connection, secret, hostile[n % len(hostile)])
        seen[status] += 1
    connection.close()


def _send(connection: http.client.HTTPConnection, secret: str, case: Case) -> int:
    headers = {"X-API-Key": secret}
    if case.body is None:
        connection.request("GET", f"{case.endpoint}?{urlencode(case.params)}", headers=headers)
    else:
        headers["Content-Type"] = "application/json"
        connection.request("POST", case.endpoint, json.dumps(case.body), headers=headers)
    response = connection.getresponse()
    response.read()
    return response.status


def _report(
    alone: list[float], attacked: list[float], seen: Counter[int], rate: float
) -> list[str]:
    p95_alone, p95_attacked = percentile(alone, 95), percentile(attacked, 95)
    statuses = ", ".join(f"{status}: {count}" for status, count in sorted(seen.items()))
    return [
        f"Contention: a Head Chef searching ordinary queries, alone and while a Sous Chef "
        f"sends the hostile cases at {rate:g}/s ({statuses}).",
        "",
        "| phase | searches | p50 ms | p95 ms |",
        "|---|---|---|---|",
        f"| alone | {len(alone)} | {percentile(alone, 50):.1f} | {p95_alone:.1f} |",
        f"| under attack | {len(attacked)} | {percentile(attacked, 50):.1f} | {p95_attacked:.1f} |",
        "",
        f"- the victim's p95 under attack: {p95_attacked / p95_alone:.2f}x alone",
    ]
