"""Revocation, rotation and tier changes are seen by every worker process on the next
request (issue 2.4): two real gunicorn worker processes, changes made in this one."""

from __future__ import annotations

import pytest

from accounts.services import account_set_market
from keys.services import key_create, key_revoke, key_rotate
from tests.factories import AccountFactory
from tests.servers import fetch, gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]

ROUNDS = 8  # enough requests that both workers serve (and cache) the key


def statuses(base: str, secret: str) -> set[int]:
    return {fetch(f"{base}/v1/market", {"X-API-Key": secret})[0] for _ in range(ROUNDS)}


def markets(base: str, secret: str) -> set[bytes]:
    return {fetch(f"{base}/v1/market", {"X-API-Key": secret})[2] for _ in range(ROUNDS)}


def test_changes_made_elsewhere_are_seen_by_every_worker():
    check_changes_are_seen_by_every_worker()


def check_changes_are_seen_by_every_worker(**env: str) -> None:
    """The test's body; ``env`` adds to the servers' environment (tests/engines run it
    on a Redis Cluster)."""
    account = AccountFactory(market="")
    key, secret = key_create(account=account, label="shared")
    with gunicorn(workers=2, **env) as base:
        assert statuses(base, secret) == {200}
        assert all(b'"market":null' in body for body in markets(base, secret))

        account_set_market(account=account, market="US")
        assert all(b'"market":"US"' in body for body in markets(base, secret))

        key, new_secret = key_rotate(key=key)
        assert statuses(base, secret) == {401}
        assert statuses(base, new_secret) == {200}

        key_revoke(key=key)
        assert statuses(base, new_secret) == {401}


def test_deactivating_the_owner_stops_every_key_on_every_worker():
    """Issue 11.1: ``is_active`` false, saved anywhere, is a 401 on the next request for
    every key of the account on every worker; reactivating restores them."""
    account = AccountFactory(market="US")
    _, first = key_create(account=account, label="one")
    _, second = key_create(account=account, label="two")
    owner = account.owner
    with gunicorn(workers=2) as base:
        assert statuses(base, first) | statuses(base, second) == {200}  # cached everywhere

        owner.is_active = False
        owner.save()
        assert statuses(base, first) | statuses(base, second) == {401}

        owner.is_active = True
        owner.save()
        assert statuses(base, first) | statuses(base, second) == {200}
