"""Fixtures of the dashboard tests: accounts with a signed-in browser session."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Account
from tests.factories import AccountFactory

PASSWORD = "correct horse battery staple"


@pytest.fixture
def verified(db: None) -> Account:
    """A Taster account whose owner verified their e-mail address; market US."""
    return AccountFactory(owner__email_verified_at=timezone.now(), market="US")


@pytest.fixture
def unverified(db: None) -> Account:
    """A Taster account whose owner has not verified their address yet."""
    return AccountFactory()


@pytest.fixture
def owner_client(verified: Account) -> Client:
    """A test client signed in as ``verified``'s owner."""
    client = Client()
    client.force_login(verified.owner)
    return client


@pytest.fixture
def other_account(db: None) -> Account:
    """Someone else's account, for the "not yours: 404" checks."""
    return AccountFactory(owner__email_verified_at=timezone.now())
