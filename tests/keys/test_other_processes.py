"""Revocation, rotation and tier changes are seen by every worker process on the next
request (issue 2.4): two real gunicorn worker processes, changes made in this one.

One server for the module: each test makes its own account and keys, so what a worker
remembers from an earlier test is never asked for again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings

from accounts.services import account_set_tier
from keys.services import key_create, key_revoke, key_rotate
from tests.factories import AccountFactory, FoodFactory, MarketFactory
from tests.support.servers import fetch, gunicorn
from tests.support.workers import ROUNDS, check_changes_are_seen_by_every_worker, statuses

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]


@pytest.fixture(scope="module")
def base(django_db_setup, django_db_blocker) -> Iterator[str]:
    with django_db_blocker.unblock(), gunicorn(workers=2) as url:
        yield url


def test_changes_made_elsewhere_are_seen_by_every_worker(base):
    check_changes_are_seen_by_every_worker(base)


def record_statuses(base: str, path: str, secret: str) -> set[int]:
    return {fetch(f"{base}{path}", {"X-API-Key": secret})[0] for _ in range(ROUNDS)}


def test_metered_reads_see_changes_on_the_next_request_on_every_worker(base):
    """Metered reads use each worker's own copy of the key's principal, checked by the
    metering script against the account's epoch (issue 13): a change made elsewhere is
    still seen by every worker on its next request, and the refused reads are not
    counted."""
    food = FoodFactory(market=MarketFactory(code="US"))
    path = f"/v1/foods/{food.public_id}"
    account = account_set_tier(account=AccountFactory(market="US"), tier="sous_chef")
    key, secret = key_create(account=account, label="shared")
    assert record_statuses(base, path, secret) == {200}
    limits = {fetch(f"{base}{path}", {"X-API-Key": secret})[1]["RateLimit-Limit"]}
    assert limits == {"250000"}

    account_set_tier(account=account, tier="head_chef")
    limits = {
        fetch(f"{base}{path}", {"X-API-Key": secret})[1]["RateLimit-Limit"] for _ in range(ROUNDS)
    }
    assert limits == {"2000000"}

    key, new_secret = key_rotate(key=key)
    assert record_statuses(base, path, secret) == {401}
    assert record_statuses(base, path, new_secret) == {200}

    key_revoke(key=key)
    assert record_statuses(base, path, new_secret) == {401}
    if settings.REDIS_URL:  # one meter for both workers (else one per worker)
        secret = key_create(account=account, label="u")[1]
        usage = fetch(f"{base}/v1/usage", {"X-API-Key": secret})
        # 8 + 1 + 8 reads admitted before the rotation, 8 after it: no 401 counted.
        assert b'"request_count":25' in usage[2]


def test_deactivating_the_owner_stops_every_key_on_every_worker(base):
    """Issue 11.1: ``is_active`` false, saved anywhere, is a 401 on the next request for
    every key of the account on every worker; reactivating restores them. Metered reads
    too, whose workers keep their own copies of the principals (issue 13: the account's
    epoch changes with ``is_active``)."""
    food = FoodFactory(market=MarketFactory(code="US"))
    path = f"/v1/foods/{food.public_id}"
    # A tier whose burst bucket holds every read below (a Taster's would 429 some).
    account = account_set_tier(account=AccountFactory(market="US"), tier="head_chef")
    _, first = key_create(account=account, label="one")
    _, second = key_create(account=account, label="two")
    owner = account.owner
    assert statuses(base, first) | statuses(base, second) == {200}  # cached everywhere
    assert record_statuses(base, path, first) == {200}  # copies in every worker

    owner.is_active = False
    owner.save()
    assert record_statuses(base, path, first) == {401}
    assert statuses(base, first) | statuses(base, second) == {401}

    owner.is_active = True
    owner.save()
    assert statuses(base, first) | statuses(base, second) == {200}
    assert record_statuses(base, path, first) == {200}
