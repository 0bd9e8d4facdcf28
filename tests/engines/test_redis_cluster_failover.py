"""Issue 30.1 and 30.2: a Redis Cluster of three masters, each with a replica, losing a
master.

1. Seeds: the node named by ``REDIS_URL`` dies and its replica takes over; workers
   started then (a deploy's restart) reach the cluster through ``REDIS_CLUSTER_NODES``
   and serve every account (with ``REDIS_URL`` alone they cannot reach it at all).
2. Failover under load: a master is SIGKILLed while every account reads steadily; its
   replica promotes itself (``cluster-node-timeout`` 2 s). Only the accounts whose slot
   that master held get 503 (with Retry-After, never 500), and only between the kill
   and the promotion (plus the client's topology refresh); no account is admitted past
   its quota; keys revoked before and during the switch are refused.

The cluster runs with ``cluster-require-full-coverage no`` (docs/operations.md): with
Redis's default, every node refuses every key while any slot has no master, so the
other masters' accounts would get 503 too between the failure and the promotion.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from django.db import connection

from accounts.services import account_set_tier
from accounts.tiers import TierLimits
from core.problems import ServiceUnavailable
from core.redis import account_tag
from keys.services import key_create, key_revoke
from metering.backends import meter_reset
from tests.engines.conftest import redis_settings
from tests.factories import AccountFactory, FoodFactory
from tests.support.scale_out import LOCAL, ThrowawayRedisCluster, redis_cli, wait_until
from tests.support.servers import fetch, gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]

# Each load thread reads every PACE seconds for ~9 s: ~55 reads an account, twice
# QUOTA, so the quota is tested under the switch, and ~15 reads of a dead master's
# accounts fall inside it (issue 41.4: 60 and 0.05 s asked the same with three times
# the requests, at ~8 ms of CPU each).
QUOTA = 25
PACE = 0.15
# After the promotion, the client learns the new topology on its next MOVED or
# connection error: its 503s may end this long after the promotion is seen here.
REFRESH_GRACE_SECONDS = 3.0


@pytest.fixture(scope="module")
def cluster() -> Iterator[ThrowawayRedisCluster]:
    cluster = ThrowawayRedisCluster(masters=3, replicas=1, full_coverage=False)
    cluster.start()
    yield cluster
    cluster.stop()


@pytest.fixture
def on_this_cluster(cluster: ThrowawayRedisCluster, settings) -> Iterator[ThrowawayRedisCluster]:
    """This process's caches and meter on ``cluster`` too: its revocations write their
    tombstones where the servers read them."""
    seeds = [(LOCAL, port) for port in cluster.ports]
    for name, value in redis_settings(
        cluster.url, REDIS_CLUSTER=True, REDIS_CLUSTER_NODES=seeds
    ).items():
        setattr(settings, name, value)
    meter_reset()
    yield cluster
    meter_reset()


def cluster_env(cluster: ThrowawayRedisCluster, *, seeds: bool = True) -> dict[str, str]:
    env = {"REDIS_URL": cluster.url, "REDIS_CLUSTER": "1"}
    if seeds:
        env["REDIS_CLUSTER_NODES"] = cluster.seeds
    return env


def accounts_on_every_master(cluster: ThrowawayRedisCluster, per_master: int = 2) -> dict:
    """Accounts (each with a key and a quota of ``QUOTA`` a day) until every master
    holds ``per_master`` of them: {account id: (secret, master port)}."""
    found: dict[int, tuple[str, int]] = {}
    masters = cluster.masters()
    while any(sum(1 for _, m in found.values() if m == p) < per_master for p in masters):
        account = AccountFactory(market="US")
        limits = TierLimits(quota=QUOTA, window="day", rate=None, burst=None)
        account = account_set_tier(account=account, tier="executive_chef", custom=limits)
        master = cluster.master_of(f"fs:meter:{account_tag(account.pk)}")
        if sum(1 for _, m in found.values() if m == master) >= per_master:
            continue
        _, secret = key_create(account=account, label="failover")
        found[account.pk] = (secret, master)
    return found


def test_workers_started_while_the_seed_is_down_connect_through_the_other_seeds(
    on_this_cluster: ThrowawayRedisCluster,
):
    cluster = on_this_cluster
    food = FoodFactory()
    accounts = accounts_on_every_master(cluster, per_master=1)
    seed = cluster.ports[0]
    assert seed in cluster.masters()
    replica = cluster.replica_of(seed)
    cluster.kill(seed)
    try:
        cluster.failover(replica)
        cluster.wait_healthy()
        path = f"/v1/foods/{food.public_id}"
        # A deploy now: new workers, the seed of REDIS_URL down.
        # One worker each: a worker's client is built at its start from the settings,
        # the same in every worker (each is a CPU-second of imports).
        with gunicorn(workers=1, **cluster_env(cluster, seeds=False)) as base:
            alone = {fetch(base + path, {"X-API-Key": s})[0] for s, _ in accounts.values()}
        assert alone == {503}  # REDIS_URL alone: no worker can reach the cluster
        with gunicorn(workers=1, **cluster_env(cluster)) as base:
            for secret, _ in accounts.values():
                statuses = {fetch(base + path, {"X-API-Key": secret})[0] for _ in range(6)}
                assert statuses == {200}
    finally:
        cluster.restart(seed)  # it rejoins as its old replica's replica
        cluster.wait_healthy()


def test_a_master_failover_under_load_touches_only_its_accounts(
    on_this_cluster: ThrowawayRedisCluster,
):
    cluster = on_this_cluster
    food = FoodFactory()
    accounts = accounts_on_every_master(cluster, per_master=2)
    victim = next(p for p in cluster.masters() if p != cluster.ports[0])
    replica = cluster.replica_of(victim)
    revoked_before = key_create(account=AccountFactory(market="US"), label="before")
    revoked_during = key_create(account=AccountFactory(market="US"), label="during")
    path = f"/v1/foods/{food.public_id}"
    seen: dict[int, list[tuple[float, int, str]]] = {pk: [] for pk in accounts}
    refused: dict[str, list[int]] = {"before": [], "during": []}
    stop = threading.Event()

    with gunicorn(workers=2, threads=4, **cluster_env(cluster)) as base:
        # Both revocable keys cached by the workers first, then one revoked.
        for _, secret in (revoked_before, revoked_during):
            assert {fetch(base + path, {"X-API-Key": secret})[0] for _ in range(4)} == {200}
        key_revoke(key=revoked_before[0])

        def load(pk: int, secret: str) -> None:
            while not stop.is_set():
                status, headers, _ = fetch(base + path, {"X-API-Key": secret})
                seen[pk].append((time.monotonic(), status, headers.get("Retry-After", "")))
                time.sleep(PACE)

        def revoked(name: str, secret: str) -> None:
            while not stop.is_set():
                refused[name].append(fetch(base + path, {"X-API-Key": secret})[0])
                time.sleep(0.2)

        threads = [
            threading.Thread(target=load, args=item)
            for item in ((pk, secret) for pk, (secret, _) in accounts.items())
        ]
        threads.append(threading.Thread(target=revoked, args=("before", revoked_before[1])))
        for thread in threads:
            thread.start()
        time.sleep(1.5)
        killed_at = time.monotonic()
        cluster.kill(victim)
        accepted: list[float] = []

        def revoke_during_the_switch() -> None:
            """Refused (503, nothing changed) while the key cache's node is away; the
            retry is accepted once it is back, and from then on the key is refused."""
            try:
                while not accepted:
                    try:
                        key_revoke(key=revoked_during[0])
                    except ServiceUnavailable:
                        time.sleep(0.2)
                        continue
                    accepted.append(time.monotonic())
            finally:
                # This thread's own database session: left open, it would keep the
                # test database busy (the PgBouncer test copies it afterwards).
                connection.close()
            revoked("during", revoked_during[1])

        during = threading.Thread(target=revoke_during_the_switch)
        during.start()
        threads.append(during)
        wait_until(
            lambda: "role:master" in redis_cli(replica, "info", "replication"),
            timeout=30,
            what="the replica to promote itself",
        )
        promoted_at = time.monotonic()
        time.sleep(REFRESH_GRACE_SECONDS + 2)
        stop.set()
        for thread in threads:
            thread.join(timeout=20)
    try:
        for pk, answers in seen.items():
            secret, master = accounts[pk]
            statuses = {status for _, status, _ in answers}
            assert statuses <= {200, 429, 503}, (pk, statuses)
            admitted = sum(1 for _, status, _ in answers if status == 200)
            assert admitted <= QUOTA, (pk, admitted)  # never over its quota
            unavailable = [(at, retry) for at, status, retry in answers if status == 503]
            if master != victim:
                assert unavailable == [], (pk, len(unavailable))
                continue
            assert unavailable  # the switch was felt by this shard's accounts...
            assert all(retry for _, retry in unavailable)  # ...with Retry-After
            assert all(
                killed_at <= at <= promoted_at + REFRESH_GRACE_SECONDS for at, _ in unavailable
            ), (pk, [round(at - killed_at, 2) for at, _ in unavailable], promoted_at - killed_at)
            assert answers[-1][1] in (200, 429)  # served again after the switch
        assert refused["before"] and set(refused["before"]) == {401}
        assert accepted  # the revocation retried during the switch went through
        assert refused["during"] and set(refused["during"]) == {401}
    finally:
        cluster.restart(victim)
        cluster.wait_healthy()
