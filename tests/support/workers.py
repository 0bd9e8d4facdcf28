"""Key changes against several gunicorn workers: used by tests/keys/test_other_processes.py
and, on a Redis Cluster, by tests/engines."""

from __future__ import annotations

from accounts.services import account_set_market
from keys.services import key_create, key_revoke, key_rotate
from tests.factories import AccountFactory
from tests.support.servers import fetch

ROUNDS = 8  # enough requests that both workers serve (and cache) the key


def statuses(base: str, secret: str) -> set[int]:
    return {fetch(f"{base}/v1/market", {"X-API-Key": secret})[0] for _ in range(ROUNDS)}


def markets(base: str, secret: str) -> set[bytes]:
    return {fetch(f"{base}/v1/market", {"X-API-Key": secret})[2] for _ in range(ROUNDS)}


def check_changes_are_seen_by_every_worker(base: str) -> None:
    """The test's body, against the gunicorn (two workers or more) at ``base``
    (tests/engines run it on a Redis Cluster)."""
    account = AccountFactory(market="")
    key, secret = key_create(account=account, label="shared")
    assert statuses(base, secret) == {200}
    assert all(b'"market":null' in body for body in markets(base, secret))

    account_set_market(account=account, market="US")
    assert all(b'"market":"US"' in body for body in markets(base, secret))

    key, new_secret = key_rotate(key=key)
    assert statuses(base, secret) == {401}
    assert statuses(base, new_secret) == {200}

    key_revoke(key=key)
    assert statuses(base, new_secret) == {401}
