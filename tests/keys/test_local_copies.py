"""Principals kept in each worker's memory, checked against the account's epoch
(keys/cache.py, issue 13). With Redis only: the embedded default keeps no copies."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_redis import get_redis_connection
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from accounts.services import account_set_tier
from core.requestnotes import notes_of
from keys import cache
from keys.authentication import ApiKeyAuthentication
from keys.services import key_create, key_revoke, key_rotate
from tests.factories import AccountFactory, FoodFactory, MarketFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not settings.REDIS_URL, reason="copies are kept only with Redis"),
]


@pytest.fixture
def record() -> str:
    return "/v1/foods/" + FoodFactory(market=MarketFactory(code="US")).public_id


def client_for(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=secret)
    return client


def usage_of(client: APIClient) -> int:
    return client.get("/v1/usage").json()["data"]["request_count"]


def test_a_hot_key_costs_no_query_and_no_key_cache_read(record):
    account = account_set_tier(account=AccountFactory(market="US"), tier="head_chef")
    client = client_for(key_create(account=account, label="k")[1])
    assert client.get(record).status_code == 200
    redis = get_redis_connection("keys")
    # the shared key cache: not needed any more
    shared = redis.keys(f"{settings.REDIS_KEY_PREFIX}:*key:*")
    assert shared
    redis.delete(*shared)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(record).status_code == 200
    assert not [q for q in captured if "keys_apikey" in q["sql"]]


@pytest.mark.parametrize("change", ["revoke", "rotate"])
def test_a_stale_copy_is_refused_by_the_meter_and_not_counted(record, change):
    account = account_set_tier(account=AccountFactory(market="US"), tier="head_chef")
    key, secret = key_create(account=account, label="k")
    watcher = client_for(key_create(account=account, label="w")[1])
    client = client_for(secret)
    assert client.get(record).status_code == 200  # the copy is made
    assert cache.local_get(cache_digest(secret)) is not None
    before = usage_of(watcher)
    key_revoke(key=key) if change == "revoke" else key_rotate(key=key)
    response = client.get(record)
    assert response.status_code == 401 and "RateLimit-Limit" not in response
    assert usage_of(watcher) == before


def test_a_stale_copy_writes_nothing_in_the_meter_state(record):
    """The stale outcome (consume.lua, last ARGV) comes before issue 19's per-key
    buckets: the refused read of a revoked key counts in none of them, and the meter
    state stays as it was, field for field."""
    from metering.backends import get_meter

    account = account_set_tier(account=AccountFactory(market="US"), tier="head_chef")
    key, secret = key_create(account=account, label="k")
    client = client_for(secret)
    assert client.get(record).status_code == 200
    meter = get_meter()
    state = meter.state_key(account.pk)
    before = meter.client.hgetall(state)
    admitted = [field for field in before if field.startswith(f"a:{key.pk}:".encode())]
    assert [before[field] for field in admitted] == [b"1"]  # issue 19's bucket counted it
    key_revoke(key=key)
    assert client.get(record).status_code == 401
    assert meter.client.hgetall(state) == before


def test_a_tier_change_applies_to_the_next_metered_read(record):
    account = account_set_tier(account=AccountFactory(market="US"), tier="sous_chef")
    client = client_for(key_create(account=account, label="k")[1])
    assert client.get(record)["RateLimit-Limit"] == "250000"
    account_set_tier(account=account, tier="head_chef")
    assert client.get(record)["RateLimit-Limit"] == "2000000"


def test_a_lost_epoch_makes_copies_read_again(record):
    """Redis losing its data (a restart, a failover) loses the epochs: every copy is
    then stale, never current by accident."""
    account = account_set_tier(account=AccountFactory(market="US"), tier="head_chef")
    _, secret = key_create(account=account, label="k")
    client = client_for(secret)
    assert client.get(record).status_code == 200
    _, old = cache.local_get(cache_digest(secret))
    redis = get_redis_connection("keys")
    redis.delete(cache.epoch_key(account.pk))
    assert client.get(record).status_code == 200
    _, new = cache.local_get(cache_digest(secret))  # read again, under a fresh epoch
    assert new != old and redis.get(cache.epoch_key(account.pk)).decode() == new


def test_unmetered_views_check_the_epoch_themselves(record):
    account = account_set_tier(account=AccountFactory(market="US"), tier="head_chef")
    key, secret = key_create(account=account, label="k")
    client = client_for(secret)
    assert client.get("/v1/usage").status_code == 200
    key_revoke(key=key)
    assert client.get("/v1/usage").status_code == 401


def cache_digest(secret: str) -> str:
    from keys import secrets

    return secrets.digest(secret, pepper=settings.KEY_PEPPER)


@pytest.mark.parametrize("checked_by_meter", [True, False])
def test_authentication_leaves_a_copys_epoch_only_to_a_meter_that_checks_it(
    record, checked_by_meter
):
    """A worker's copy is answered unchecked, its epoch noted for the meter, only when
    the request's note says the meter checks it; otherwise authentication checks it and
    notes nothing to check."""
    account = account_set_tier(account=AccountFactory(market="US"), tier="head_chef")
    secret = key_create(account=account, label="k")[1]
    assert client_for(secret).get(record).status_code == 200  # the copy is made
    request = Request(APIRequestFactory().get(record, HTTP_X_API_KEY=secret))
    notes_of(request).key_checked_by_meter = checked_by_meter
    principal, _ = ApiKeyAuthentication().authenticate(request)
    assert principal.account_id == account.pk
    copy_epoch = cache.local_get(cache_digest(secret))[1]
    assert copy_epoch is not None
    assert notes_of(request).key_epoch == (copy_epoch if checked_by_meter else None)
