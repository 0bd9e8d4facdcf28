"""Exact under concurrency (issue 4, Proof): many concurrent clients over 5 keys of one
account against a real multi-worker server admit exactly the quota and exactly the
burst, and /v1/usage agrees; losing the meter's state mid-run brings the counts back
from the history, never a 500.

PostgreSQL + Redis pass: real gunicorn, 4 worker processes x 2 threads, sharing Redis.
Embedded pass: the in-process meter exists once per process, so the same floods run
against a threaded server in this process (pytest-django's ``live_server``).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import pytest
from django.conf import settings
from django.db.models import Sum

from accounts.services import account_set_tier
from accounts.tiers import TierLimits
from keys.services import key_create
from metering.backends import meter_reset
from metering.models import KeyUsageHour
from tests.factories import AccountFactory
from tests.support.engines import ThrowawayRedis
from tests.support.servers import fetch, gunicorn

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.server,
    pytest.mark.urls("tests.metering.urls"),
]

CLIENTS = 24
SERVER_ENV = {
    "DJANGO_SETTINGS_MODULE": "tests.metering.server_settings",
    "METER_FLUSH_SECONDS": "0.5",
    "METER_FAILURE_POLICY": "closed",
    "GUNICORN_MAX_REQUESTS": "0",
}


@contextmanager
def server(request: pytest.FixtureRequest, **env: str) -> Iterator[str]:
    if settings.REDIS_URL:
        with gunicorn(workers=4, threads=2, **{**SERVER_ENV, **env}) as base:
            yield base
    else:
        yield request.getfixturevalue("live_server").url


@pytest.fixture(scope="module")
def flood_server(
    request: pytest.FixtureRequest, django_db_setup, django_db_blocker
) -> Iterator[str]:
    """One server for the floods, which read only their own account's counts. Its
    flusher is off: a history write in the background while a test's teardown truncates
    the tables deadlocks on PostgreSQL (tests/support/servers.py ``server_env``)."""
    with django_db_blocker.unblock(), server(request, METER_FLUSH_SECONDS="0") as base:
        yield base


def account_with_keys(limits: TierLimits) -> list[str]:
    account = AccountFactory(market="US")
    account_set_tier(account=account, tier="executive_chef", custom=limits)
    return [key_create(account=account, label=f"key {i}")[1] for i in range(5)]


def flood(base: str, secrets: list[str], n: int) -> list[tuple[int, dict, bytes]]:
    """``n`` reads from ``CLIENTS`` concurrent clients, spread over ``secrets``."""

    def one(i: int) -> tuple[int, dict, bytes]:
        return fetch(f"{base}/v1/test-records/{i}", {"X-API-Key": secrets[i % len(secrets)]})

    with ThreadPoolExecutor(CLIENTS) as pool:
        return list(pool.map(one, range(1, n + 1)))


def problem_types(results: list[tuple[int, dict, bytes]]) -> Counter:
    return Counter(
        json.loads(body)["type"] if status != 200 else 200 for status, _, body in results
    )


def usage(base: str, secret: str) -> dict:
    status, _, body = fetch(f"{base}/v1/usage", {"X-API-Key": secret})
    assert status == 200, body
    return json.loads(body)["data"]


def test_a_concurrent_flood_admits_exactly_the_quota(flood_server: str):
    secrets = account_with_keys(TierLimits(quota=60, window="day", rate=None, burst=None))
    results = flood(flood_server, secrets, 150)
    assert problem_types(results) == {200: 60, "/problems/quota-exceeded": 90}
    assert {usage(flood_server, s)["request_count"] for s in secrets} == {60}
    assert usage(flood_server, secrets[0])["remaining"] == 0
    remaining = sorted(int(h["RateLimit-Remaining"]) for s, h, _ in results if s == 200)
    assert remaining == list(range(60))  # every admitted request saw its own count


def test_an_instant_flood_admits_exactly_the_burst(flood_server: str):
    # A refill of one token per 1000 s: nothing refills during the flood.
    limits = TierLimits(quota=100_000, window="month", rate=0.001, burst=20)
    secrets = account_with_keys(limits)
    results = flood(flood_server, secrets, 100)
    assert problem_types(results) == {200: 20, "/problems/burst-limit-exceeded": 80}
    assert usage(flood_server, secrets[0])["request_count"] == 20
    refused = [h for s, h, _ in results if s == 429]
    assert all("RateLimit-Remaining" not in h and h["Retry-After"] for h in refused)


class MeterOutage:
    """Makes the meter lose its state mid-run. PostgreSQL + Redis pass: a throwaway
    redis-server of this test's own (never the shared one) is stopped, then started
    again empty. Embedded pass: the in-process meter is dropped, as a restart would."""

    def __init__(self) -> None:
        self.redis = ThrowawayRedis() if settings.REDIS_URL else None

    @property
    def url(self) -> str | None:
        return self.redis.url if self.redis else None

    def start(self) -> None:
        if self.redis:
            self.redis.start()

    def stop(self) -> None:
        if self.redis:
            self.redis.stop()
        else:
            meter_reset()


@pytest.fixture
def outage() -> Iterator[MeterOutage]:
    meter = MeterOutage()
    meter.start()
    yield meter
    if meter.redis:
        meter.redis.stop()


def wait_for_history(total: int) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if (KeyUsageHour.objects.aggregate(n=Sum("count"))["n"] or 0) >= total:
            return
        time.sleep(0.1)
    raise AssertionError("the workers did not write the history in time")


def test_counts_come_back_from_history_when_the_meter_loses_them(request, outage, settings):
    secrets = account_with_keys(TierLimits(quota=40, window="day", rate=None, burst=None))
    env = {"REDIS_URL": outage.url} if outage.url else {}
    if not outage.url:
        settings.METER_FLUSH_SECONDS = 0.5  # the live server's flusher thread
    with server(request, **env) as base:
        assert problem_types(flood(base, secrets, 15)) == {200: 15}
        wait_for_history(15)

        outage.stop()
        if outage.url:  # Redis is down: fail closed, a 503 problem, never a 500
            down = flood(base, secrets, 10)
            assert problem_types(down) == {"/problems/service-unavailable": 10}
            outage.start()

        assert usage(base, secrets[0])["request_count"] == 15
        results = flood(base, secrets, 40)
        assert problem_types(results) == {200: 25, "/problems/quota-exceeded": 15}
        assert usage(base, secrets[1])["request_count"] == 40
