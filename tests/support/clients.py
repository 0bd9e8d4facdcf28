"""API clients holding a fresh key of a new account (tests of markets and tiers)."""

from __future__ import annotations

from rest_framework.test import APIClient

from accounts.services import account_set_tier
from keys.services import key_create
from tests.factories import AccountFactory


def client_of(market: str, tier: str = "taster") -> APIClient:
    account = AccountFactory(market=market)
    if tier != "taster":
        account_set_tier(account=account, tier=tier)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_create(account=account, label=market or "none")[1])
    return client
