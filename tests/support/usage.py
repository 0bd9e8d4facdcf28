"""Metered requests of every outcome, for the usage history and usage debugging tests
(tests/metering)."""

from __future__ import annotations

from rest_framework.test import APIClient

from accounts.models import Account
from accounts.services import account_set_tier
from accounts.tiers import TierLimits
from keys.services import key_create
from tests.conftest import T0
from tests.factories import AccountFactory


def read(client: APIClient, secret: str, pk: int = 1) -> int:
    return client.get(f"/v1/test-records/{pk}", headers={"X-API-Key": secret}).status_code


def small_account(quota: int = 6) -> Account:
    """Executive Chef with negotiated limits: a rolling day of ``quota`` requests and a
    burst of 3 at 1 a second, so every outcome is easy to provoke."""
    account = AccountFactory(market="US", owner__email_verified_at=T0)
    limits = TierLimits(quota=quota, window="day", rate=1.0, burst=3)
    return account_set_tier(account=account, tier="executive_chef", custom=limits, now=T0)


def every_outcome(client: APIClient, clock) -> tuple[Account, list, list[str]]:
    """Two keys; key a: 3 admitted then 2 burst 429s; 3 s later key b: 1 admitted and
    one failed (5xx, given back); 3 s later 2 admitted, then 2 quota 429s."""
    account = small_account()
    keys = [key_create(account=account, label=label) for label in ("a", "b")]
    secrets = [s for _, s in keys]
    assert [read(client, secrets[0]) for _ in range(5)] == [200, 200, 200, 429, 429]
    clock.shift(3)
    assert [read(client, secrets[1], pk) for pk in (1, 500)] == [200, 500]
    clock.shift(3)
    assert [read(client, secrets[1]) for _ in range(4)] == [200, 200, 429, 429]
    return account, [k for k, _ in keys], secrets
