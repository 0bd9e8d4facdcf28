"""Fixtures of the catalogue tests: clients per tier, and small real-format catalogues."""

from __future__ import annotations

from pathlib import Path

import pytest
from rest_framework.test import APIClient

from accounts.models import Account
from accounts.services import account_set_tier
from catalogue.importers.load import LoadReport, catalogue_load
from keys.models import ApiKey
from keys.services import key_create
from tests.factories import AccountFactory

DATA = Path(__file__).parent / "data"


def _client(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=secret)
    return client


@pytest.fixture
def taster(key_and_secret: tuple[ApiKey, str]) -> APIClient:
    """A Taster key's client, market US chosen."""
    return _client(key_and_secret[1])


@pytest.fixture
def paid(paid_key_and_secret: tuple[ApiKey, str]) -> APIClient:
    """A Sous Chef key's client (no market chosen: paid tiers see all)."""
    return _client(paid_key_and_secret[1])


@pytest.fixture
def unthrottled(db: None) -> APIClient:
    """A Head Chef key's client: no burst limit, for tests sending many requests."""
    account: Account = AccountFactory()
    account_set_tier(account=account, tier="head_chef")
    return _client(key_create(account=account, label="head chef")[1])


@pytest.fixture
def taster_no_market(db: None) -> APIClient:
    account: Account = AccountFactory(market="")
    return _client(key_create(account=account, label="no market")[1])


@pytest.fixture
def sr28_small(db: None) -> LoadReport:
    """20 real SR28 foods (butter, peanut butter, buttermilk, cheddar, ...) loaded by the
    real loader from tests/catalogue/data/sr28."""
    return catalogue_load(source="sr28", path=DATA / "sr28")


@pytest.fixture
def fdc_small(db: None) -> LoadReport:
    return catalogue_load(source="fdc", path=DATA / "fdc" / "fooddata.csv")


@pytest.fixture
def release_dir(tmp_path: Path) -> Path:
    """The small FDC release of tests/support/fdc_release.py, written as a folder."""
    from tests.support.fdc_release import write_release

    return write_release(tmp_path / "release")


@pytest.fixture
def release_small(db: None, release_dir: Path) -> LoadReport:
    """That release loaded by the real loader into an empty catalogue."""
    return catalogue_load(source="fdc-release", path=release_dir)
