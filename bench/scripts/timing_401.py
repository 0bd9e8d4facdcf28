"""Is a 401 for a revoked key as fast as a 401 for an unknown key? (issue 7.8)

Both must take the same time within noise, so the timing cannot tell an attacker that a
key once existed. The script makes a throwaway account with a revoked key, then sends
GET /v1/market through the whole Django stack (middleware, DRF, authentication, the key
cache, one indexed query) in-process, alternating the two kinds of key in random order
so drift in the machine hits both alike, and compares the two samples:

- medians and 10 %-trimmed means, in microseconds;
- a bootstrap 95 % confidence interval of the difference of the medians;
- a Mann-Whitney U test (normal approximation), two-sided.

Verdict "equal within noise" when the interval holds 0 or the medians differ by under
2 %. Run against the production backends (the embedded default has no key cache):

    DATABASE_URL=postgres://... REDIS_URL=redis://... python manage.py migrate
    DATABASE_URL=postgres://... REDIS_URL=redis://... python bench/scripts/timing_401.py [rounds]

Results go to bench/RESULTS.md under "## Timing". The throwaway account is deleted at
the end. Nothing here is a pass/fail test: the suite's tests/hostile/test_key_timing.py
asserts the cause (same SQL, same cache calls) instead.
"""

from __future__ import annotations

import logging
import math
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.test import Client  # noqa: E402

from accounts.services import account_create  # noqa: E402
from keys import secrets  # noqa: E402
from keys.services import key_create, key_revoke  # noqa: E402

WARMUP = 200
logging.disable(logging.CRITICAL)  # the same log lines for both kinds: only noise here


def timed(client: Client, secret: str) -> float:
    start = time.perf_counter_ns()
    response = client.get("/v1/market", HTTP_X_API_KEY=secret)
    elapsed = (time.perf_counter_ns() - start) / 1000
    assert response.status_code == 401, response.status_code
    return elapsed


def trimmed_mean(values: list[float], cut: float = 0.1) -> float:
    ordered = sorted(values)
    k = int(len(ordered) * cut)
    return statistics.fmean(ordered[k : len(ordered) - k])


def bootstrap_median_diff(a: list[float], b: list[float], *, n: int = 2000) -> tuple[float, float]:
    rng = random.Random(7)
    diffs = sorted(
        statistics.median(rng.choices(a, k=len(a))) - statistics.median(rng.choices(b, k=len(b)))
        for _ in range(n)
    )
    return diffs[int(0.025 * n)], diffs[int(0.975 * n)]


def mann_whitney_p(a: list[float], b: list[float]) -> float:
    """Two-sided p-value of the Mann-Whitney U test, normal approximation with ties."""
    pooled = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks = [0.0] * len(pooled)
    i = 0
    ties = 0.0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t**3 - t
        i = j + 1
    n1, n2 = len(a), len(b)
    r1 = sum(r for r, (_, group) in zip(ranks, pooled, strict=True) if group == 0)
    u = r1 - n1 * (n1 + 1) / 2
    n = n1 + n2
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))))
    z = (u - n1 * n2 / 2) / sigma if sigma else 0.0
    return math.erfc(abs(z) / math.sqrt(2))


def main(rounds: int) -> None:
    account = account_create(email=f"timing-bench-{os.getpid()}@example.com", market="US")
    try:
        key, revoked = key_create(account=account, label="revoked for the timing bench")
        key_revoke(key=key)
        client = Client()
        samples: dict[str, list[float]] = {"unknown": [], "revoked": []}
        for i in range(WARMUP + rounds):
            pair = [("unknown", secrets.generate()), ("revoked", revoked)]
            random.shuffle(pair)
            for kind, secret in pair:
                elapsed = timed(client, secret)
                if i >= WARMUP:
                    samples[kind].append(elapsed)
        report(samples, rounds)
    finally:
        account.owner.delete()  # the account and its key go with it


def report(samples: dict[str, list[float]], rounds: int) -> None:
    unknown, revoked = samples["unknown"], samples["revoked"]
    low, high = bootstrap_median_diff(revoked, unknown)
    med_u, med_r = statistics.median(unknown), statistics.median(revoked)
    relative = abs(med_r - med_u) / med_u
    equal = low <= 0 <= high or relative < 0.02
    db = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(
        f"machine: {platform.node()} {platform.machine()} {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M %Z')}, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"backends: database={db} key cache={'redis' if settings.REDIS_URL else 'none'}; "
        f"{rounds} rounds after {WARMUP} warm-up, GET /v1/market in-process"
    )
    print("| key | median µs | trimmed mean µs | p95 µs |")
    print("|---|---|---|---|")
    for name, values in (("unknown, well-formed", unknown), ("revoked", revoked)):
        p95 = statistics.quantiles(values, n=20)[-1]
        print(
            f"| {name} | {statistics.median(values):.0f} | {trimmed_mean(values):.0f} | {p95:.0f} |"
        )
    print(
        f"median difference (revoked - unknown): {med_r - med_u:+.1f} µs "
        f"({relative:.1%}); bootstrap 95 % CI [{low:+.1f}, {high:+.1f}] µs; "
        f"Mann-Whitney p = {mann_whitney_p(revoked, unknown):.3f}"
    )
    print("verdict:", "equal within noise" if equal else "DIFFERENT: investigate")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
