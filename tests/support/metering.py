"""Helpers of the metering tests: a metered read and /v1/usage through the test routes
(``tests.metering.urls``), an account with given limits, and losing the meter's state."""

from __future__ import annotations

from django.conf import settings
from rest_framework.test import APIClient

from accounts.models import Account
from accounts.services import account_set_tier
from accounts.tiers import TierLimits
from metering.backends import meter_reset
from tests.conftest import T0
from tests.factories import AccountFactory
from tests.support.servers import redis_clear

RATELIMIT = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "X-RateLimit-Reset")
IETF = ("RateLimit-Policy", "RateLimit")


def read(client: APIClient, secret: str, pk: int = 1, **headers: str):
    return client.get(f"/v1/test-records/{pk}", headers={"X-API-Key": secret, **headers})


def usage(client: APIClient, secret: str) -> dict:
    response = client.get("/v1/usage", headers={"X-API-Key": secret})
    assert response.status_code == 200
    assert not any(name in response for name in RATELIMIT + IETF)  # unmetered
    return response.json()["data"]


def custom_account(quota: int, window: str = "day", rate=None, burst=None) -> Account:
    account = AccountFactory(market="US")
    limits = TierLimits(quota=quota, window=window, rate=rate, burst=burst)
    return account_set_tier(account=account, tier="executive_chef", custom=limits, now=T0)


def lose_meter_state() -> None:
    """What a Redis restart (or a process restart, in-process) does to the live counts."""
    if settings.METER_BACKEND == "redis":
        redis_clear()
    meter_reset()
