"""Issue 18.2: REDIS_SENTINELS / REDIS_SENTINEL_MASTER, and what metering promises when
Sentinel fails the primary over to its replica mid-load (docs/operations.md, "Redis
Sentinel").

A primary, its replica and three sentinels of the module's own; gunicorn (2 workers x 2
threads) finds the primary through the sentinels. Four client threads read one food as
fast as they can; the primary is SIGKILLed mid-load and the sentinels promote the
replica. Checked: never a 500; 503 problems (with Retry-After) only from the kill until
shortly after the promotion; a revocation made just before the kill, and one refused
during the switch and made again after it, both hold; the account is admitted at most
its quota plus the writes the replica had not received, which are measured (admissions
in the durable history minus the count on the promoted replica) and at most one per
concurrent request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.services import account_set_tier
from catalogue.delivery import rendering
from core.calendar import to_us
from core.problems import ServiceUnavailable
from keys.models import ApiKey
from keys.services import key_create, key_revoke
from metering.backends import RedisMeter, get_meter, meter_reset, redis_client
from metering.meter import Seed
from metering.windows import window_at
from tests.engines.conftest import redis_settings
from tests.factories import AccountFactory, FoodFactory
from tests.faults.conftest import FLUSH_SECONDS, Tenant, history_total, problem_type, wait_for
from tests.support.scale_out import LOCAL, ThrowawaySentinel
from tests.support.servers import gunicorn

pytestmark = pytest.mark.django_db(transaction=True)

# Half of issue 18's 300 and 120 (issue 41.4: each read is ~8 ms of CPU in all): the
# primary still dies mid-load, with most of the quota left to spend on the replica.
QUOTA = 150
THREADS = 4
BEFORE_KILL = 60  # 200s answered before the primary is killed
# Each load thread's pause between reads (about 50 reads a second in all): unpaced, the
# threads spent the whole quota in the half second between BEFORE_KILL and the kill
# (key_revoke runs in between), so no 200 could follow the failover. (0.04 s for a
# quota of 300 until issue 41.4: the ~2 s switch alone was ~160 reads, all 503s.)
PACE = 0.08


@pytest.fixture(scope="module")
def sentinel_pair() -> Iterator[ThrowawaySentinel]:
    """One primary, replica and sentinels for the module (after the failover test, the
    next test runs on the promoted replica: the primary the sentinels name)."""
    pair = ThrowawaySentinel()
    pair.start()
    yield pair
    pair.stop()


@pytest.fixture
def sentinel(sentinel_pair: ThrowawaySentinel, settings) -> ThrowawaySentinel:
    sentinels = [(LOCAL, port) for port in sentinel_pair.sentinel_ports]
    for name, value in redis_settings(
        sentinel_pair.url, REDIS_SENTINELS=sentinels, REDIS_SENTINEL_MASTER=sentinel_pair.master
    ).items():
        setattr(settings, name, value)
    return sentinel_pair


class Load:
    """``THREADS`` threads reading ``path`` with ``secret`` until stopped; every answer is
    kept with the time it arrived."""

    def __init__(self, tenant: Tenant, base: str) -> None:
        self.tenant, self.base = tenant, base
        self.results: list[tuple[float, int, dict, bytes]] = []
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(THREADS)]

    def _run(self) -> None:
        while not self.stopped.is_set():
            status, headers, body = self.tenant.read(self.base)
            with self.lock:
                self.results.append((time.monotonic(), status, headers, body))
            self.stopped.wait(PACE)

    def count(self, status: int, since: float = 0.0) -> int:
        with self.lock:
            return sum(1 for at, s, _, _ in self.results if s == status and at >= since)

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        for thread in self.threads:
            thread.join(timeout=15)


def meter_count(tenant: Tenant) -> int:
    """The account's count on the primary Sentinel names now (a peek changes nothing)."""
    account = tenant.account
    now = datetime.now(tz=UTC)
    tally = RedisMeter(redis_client(settings.REDIS_URL)).consume(
        account_id=account.pk,
        window=window_at(account.limits, account.billing_anchor, now),
        bucket=None,
        now_us=to_us(now),
        seed=lambda: Seed(hours={}, period_count=0),
        peek=True,
    )
    return tally.used


def test_a_failover_mid_load_keeps_the_metering_promises(sentinel: ThrowawaySentinel):
    tenant = Tenant(quota=QUOTA)
    env = {
        "REDIS_URL": sentinel.url,
        "REDIS_SENTINELS": sentinel.sentinels,
        "REDIS_SENTINEL_MASTER": sentinel.master,
        "METER_FLUSH_SECONDS": FLUSH_SECONDS,
    }
    with gunicorn(workers=2, threads=2, **env) as base:
        # Key 0 is used (so cached in Redis, and replicated) before it is revoked.
        assert problem_type(tenant.read(base, tenant.secrets[0])) == 200
        with Load(tenant, base) as load:
            wait_for(lambda: load.count(200) >= BEFORE_KILL, timeout=60, what="the load")
            key_revoke(key=tenant.keys[0])  # its tombstone waits for the replica
            killed_at = time.monotonic()
            sentinel.kill_primary()

            # During the switch the key services refuse changes rather than lose them.
            with pytest.raises(ServiceUnavailable):
                key_revoke(key=tenant.keys[1])
            assert ApiKey.objects.get(pk=tenant.keys[1].pk).revoked_at is None

            sentinel.wait_for_failover()
            promoted_at = time.monotonic()
            # Made again once the replica is promoted, as the 503 asks: "retry in a few
            # seconds" (a client's connection pool may take a moment to find the new
            # primary after the sentinels agree).
            _retry_while_unavailable(lambda: key_revoke(key=tenant.keys[1]), seconds=15)
            wait_for(
                lambda: load.count(429, since=promoted_at) >= 20,
                timeout=60,
                what="the quota to run out after the failover",
            )
        # Both revocations hold on the promoted replica, on every worker.
        for secret in tenant.secrets[:2]:
            assert {tenant.read(base, secret)[0] for _ in range(6)} == {401}
        answered = load.count(200) + 1  # 200s the clients saw (+ key 0's first read)
        on_replica = meter_count(tenant)
        # Every admission is in the history once the workers flushed: the 200s, and the
        # few admitted during the switch whose response then failed on another Redis
        # call (the catalogue's cache) and became a 503.
        wait_for(
            lambda: history_total(tenant.account.pk) >= max(answered, on_replica),
            what="the history",
        )
        time.sleep(3 * float(FLUSH_SECONDS))
        admitted = history_total(tenant.account.pk)

    statuses = {status for _, status, _, _ in load.results}
    assert statuses <= {200, 429, 503}, statuses  # never a 500
    unavailable = [(at, headers) for at, status, headers, _ in load.results if status == 503]
    assert unavailable, "the switch was not seen (the primary was killed mid-load)"
    assert all(killed_at <= at <= promoted_at + 5 for at, _ in unavailable)
    assert all(headers.get("Retry-After") for _, headers in unavailable)
    assert load.count(200, since=promoted_at) > 0, "service resumed on the promoted replica"

    lost = admitted - on_replica  # admitted on the old primary, never replicated
    over = answered - QUOTA
    print(
        f"\nsentinel failover: answered 200={answered} admitted={admitted} quota={QUOTA} "
        f"over-admitted={over} lost-writes={lost} 503s={len(unavailable)} "
        f"switch={promoted_at - killed_at:.1f}s"
    )
    assert answered <= admitted
    assert 0 <= lost <= THREADS
    assert over <= lost


def _retry_while_unavailable(change, *, seconds: float) -> None:
    """Run ``change`` until it is not refused with the 503 problem, for up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            change()
            return
        except ServiceUnavailable:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_records_are_shared_in_the_meters_round_trip_through_sentinel(
    sentinel: ThrowawaySentinel, settings
):
    """Issue 28.5 on Sentinel: the meter's pipeline (EVALSHA and GET) and the copy's
    write both go to the primary the sentinels name, so a record one worker read is
    served to another with no food query."""
    settings.CATALOGUE_VERSION_SECONDS = 60
    meter_reset()
    try:
        assert get_meter().carries
        food = FoodFactory(name="Butter, salted")
        account = AccountFactory()
        account_set_tier(account=account, tier="head_chef")
        client = APIClient()
        client.credentials(HTTP_X_API_KEY=key_create(account=account, label="k")[1])
        path = f"/v1/foods/{food.public_id}"
        first = client.get(path)
        assert first.status_code == 200
        rendering.local_records.clear()  # another worker
        with CaptureQueriesContext(connection) as captured:
            again = client.get(path)
        assert (again.status_code, again.content) == (200, first.content)
        assert not [q["sql"] for q in captured if "catalogue_food" in q["sql"]]
    finally:
        rendering.local_records.clear()
        meter_reset()
