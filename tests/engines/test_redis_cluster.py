"""Issue 18.1: REDIS_CLUSTER=1 on a real Redis Cluster of three masters (started by the
session's ``redis_cluster`` fixture): the metering parity suite, the key cache with its
tombstones, the other caches, the cross-process revocation test, and every key of an
account in one slot."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.core.cache import caches
from django.utils import timezone
from redis.cluster import RedisCluster
from rest_framework.test import APIClient

from accounts.services import account_set_tier
from accounts.tiers import TierLimits
from core.calendar import hour_of
from core.redis import account_tag
from keys import cache as key_cache
from keys.secrets import digest
from keys.selectors import principal_build
from keys.services import key_create, key_revoke
from metering.backends import RedisMeter, get_meter, redis_client
from metering.history import usage_flush
from metering.models import KeyUsageHour
from metering.services import usage_consume
from tests.factories import AccountFactory, FoodFactory
from tests.support.keys import principal_of
from tests.support.meter_cases import CASES, admitted_of, run
from tests.support.scale_out import ThrowawayRedisCluster
from tests.support.servers import gunicorn
from tests.support.workers import check_changes_are_seen_by_every_worker

# Tests that start gunicorn or read through the stack commit their data (other processes
# must see it); the meter-only ones need no database.
committed = pytest.mark.django_db(transaction=True)


def test_the_service_builds_cluster_clients(on_cluster: ThrowawayRedisCluster):
    assert isinstance(redis_client(on_cluster.url), RedisCluster)
    assert isinstance(get_meter().client, RedisCluster)
    assert get_meter().carries  # after its script (no script in a pipeline): a GET
    assert isinstance(caches["keys"].client.get_client(), RedisCluster)


@pytest.mark.parametrize("name", list(CASES))
def test_metering_parity_on_a_cluster(on_cluster: ThrowawayRedisCluster, name: str):
    case = CASES[name]
    expected = [(s.expect, s.used, admitted_of(s), s.retry_after) for s in case.steps]
    meter = RedisMeter(redis_client(on_cluster.url))
    assert run(meter, case, account_id=1000 + list(CASES).index(name)) == expected


def _keys_by_slot(cluster: ThrowawayRedisCluster, tag: str) -> dict[int, list[str]]:
    client = RedisCluster.from_url(cluster.url, decode_responses=True)
    found: dict[int, list[str]] = {}
    for key in client.scan_iter(match=f"*{tag}*", target_nodes=RedisCluster.PRIMARIES):
        found.setdefault(client.keyslot(key), []).append(key)
    client.close()
    return found


@committed
def test_every_key_of_an_account_lives_in_one_slot(on_cluster: ThrowawayRedisCluster, api_client):
    """Real requests through the whole stack (key cache, meter, usage) for several
    accounts; then every Redis key that names an account is in that account's slot,
    whatever code put it there (the meter's state, or any per-account key added later)."""
    food = FoodFactory()
    accounts = []
    for tier in ("taster", "sous_chef", "head_chef", "executive_chef"):
        account = account_set_tier(account=AccountFactory(market="US"), tier=tier)
        _, secret = key_create(account=account, label="cluster")
        for _ in range(3):
            response = api_client.get(f"/v1/foods/{food.public_id}", HTTP_X_API_KEY=secret)
            assert response.status_code == 200, response.content
        assert api_client.get("/v1/usage", HTTP_X_API_KEY=secret).status_code == 200
        accounts.append(account)
    slots = set()
    for account in accounts:
        tag = account_tag(account.pk)
        found = _keys_by_slot(on_cluster, tag)
        assert list(found) == [RedisCluster.from_url(on_cluster.url).keyslot(tag)], found
        assert f"{settings.REDIS_KEY_PREFIX}:meter:{tag}" in next(iter(found.values()))
        slots |= set(found)
    # The accounts are spread over the cluster (one slot each, not one slot for all).
    assert len(slots) == len(accounts)


@committed
def test_key_cache_and_tombstones_on_a_cluster(on_cluster: ThrowawayRedisCluster):
    account = AccountFactory(market="US")
    key, secret = key_create(account=account, label="cached")
    principal = principal_of(secret)
    assert principal is not None
    secret_digest = digest(secret, pepper=settings.KEY_PEPPER)
    assert key_cache.cached_principal(secret_digest) == principal  # cached on the cluster

    key_revoke(key=key)
    assert caches["keys"].get(f"key:{secret_digest}") == key_cache.TOMBSTONE
    key_cache.remember(secret_digest, principal)  # a stale copy cannot come back
    assert key_cache.cached_principal(secret_digest) is None
    assert principal_of(secret) is None


@pytest.mark.django_db
def test_the_other_caches_work_across_slots(on_cluster: ThrowawayRedisCluster):
    """Multi-key calls the service makes (``set_many``, ``delete_many``, ``incr``,
    ``add``, ``clear``) on keys that hash to different masters."""
    cache = caches["default"]
    names = [f"name-{i}" for i in range(20)]
    cache.set_many(dict.fromkeys(names, 1), timeout=60)
    assert all(cache.get(name) == 1 for name in names)
    cache.delete_many(names)
    assert all(cache.get(name) is None for name in names)
    assert cache.add("counter", 0, timeout=60)
    assert not cache.add("counter", 5, timeout=60)
    assert cache.incr("counter") == 1
    cache.clear()
    assert cache.get("counter") is None


@committed
def test_changes_are_seen_by_every_worker_on_a_cluster(on_cluster: ThrowawayRedisCluster):
    with gunicorn(workers=2, REDIS_URL=on_cluster.url, REDIS_CLUSTER="1") as base:
        check_changes_are_seen_by_every_worker(base)


@committed
def test_a_tier_change_on_a_cluster_reaches_the_meter(on_cluster: ThrowawayRedisCluster):
    """The meter's Lua script sees a new quota on the next request (one account, one
    slot, whatever master holds it)."""
    food = FoodFactory()
    account = AccountFactory(market="US")
    small = TierLimits(quota=2, window="day", rate=None, burst=None)
    account = account_set_tier(account=account, tier="executive_chef", custom=small)
    _, secret = key_create(account=account, label="small")
    client = APIClient()
    statuses = [
        client.get(f"/v1/foods/{food.public_id}", HTTP_X_API_KEY=secret).status_code
        for _ in range(3)
    ]
    assert statuses == [200, 200, 429]
    bigger = TierLimits(quota=3, window="day", rate=None, burst=None)
    account_set_tier(account=account, tier="executive_chef", custom=bigger)
    assert client.get(f"/v1/foods/{food.public_id}", HTTP_X_API_KEY=secret).status_code == 200


@pytest.mark.django_db
def test_a_usage_flush_forgets_copied_hours_on_a_cluster(on_cluster, clock):
    """The flush's prune scripts reach a cluster, which refuses scripts in a pipeline:
    sent in one, they failed on every flush and an account's hourly buckets stayed in
    Redis until its state expired."""
    limits = TierLimits(quota=1000, window="day", rate=None, burst=None)
    account = account_set_tier(
        account=AccountFactory(market="US"), tier="executive_chef", custom=limits
    )
    key, _ = key_create(account=account, label="k")
    principal = principal_build(key=key)
    meter = get_meter()
    assert isinstance(meter.client, RedisCluster)

    def fields() -> set[str]:
        state = meter.client.hgetall(meter.state_key(account.pk))
        return {name.decode() for name in state if name[1:2] == b":"}

    first = timezone.now()
    usage_consume(principal=principal, now=first)
    usage_flush(now=first)
    assert f"a:{key.pk}:{hour_of(first)}" in fields()  # the current hour stays
    later = first + timedelta(hours=3)
    clock.move_to(later)
    usage_consume(principal=principal, now=later)
    usage_flush(now=later)
    assert fields() == {f"a:{key.pk}:{hour_of(later)}"}  # and "l:", copied too
    assert KeyUsageHour.objects.filter(key=key).count() == 2


@pytest.mark.django_db
def test_records_and_search_pages_are_shared_on_a_cluster(
    on_cluster: ThrowawayRedisCluster, settings
):
    # Issue 41.1: the cluster runs no script in a pipeline, so the meter reads a shared
    # copy with a GET after its script: no query for a record or a page any worker read
    # lately.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from catalogue.delivery import rendering

    settings.CATALOGUE_VERSION_SECONDS = 60
    food = FoodFactory(name="Butter, salted")
    account = AccountFactory()
    account_set_tier(account=account, tier="head_chef")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_create(account=account, label="c")[1])
    paths = (f"/v1/foods/{food.public_id}", "/v1/foods?q=butter")
    first = [client.get(path) for path in paths]
    assert [r.status_code for r in first] == [200, 200]
    rendering.local_records.clear()  # another worker: its memory holds none of them
    rendering.local_pages.clear()
    with CaptureQueriesContext(connection) as captured:
        again = [client.get(path) for path in paths]
    assert [r.content for r in again] == [r.content for r in first]
    assert not [q for q in captured if "catalogue_food" in q["sql"]]
