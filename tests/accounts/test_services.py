"""accounts/services.py: accounts, tier changes and markets (spec 2.1, 3.2, 3.3)."""

from __future__ import annotations

import datetime as dt

import pytest

from accounts.models import Account, User
from accounts.services import account_create, account_set_market, account_set_tier
from accounts.tiers import TierLimits, tier_limits
from core import problems
from tests.conftest import T0
from tests.support.keys import principal_of

pytestmark = pytest.mark.django_db


@pytest.mark.real_hashers
def test_new_accounts_start_on_taster_without_a_market():
    account = account_create(email="New.Cook@Example.com", password="a long passphrase 42")
    assert account.tier == "taster"
    assert account.market == ""
    assert account.billing_anchor is None
    assert account.owner.email == "new.cook@example.com"
    assert account.owner.password.startswith("argon2")


@pytest.mark.parametrize("email", ["not-an-email", "", "a@b"])
def test_create_refuses_a_bad_email(email):
    with pytest.raises(problems.ValidationFailed):
        account_create(email=email)
    assert not User.objects.exists()


def test_create_refuses_a_taken_email_in_any_case():
    account_create(email="cook@example.com")
    with pytest.raises(problems.ValidationFailed):
        account_create(email="COOK@example.com")
    assert Account.objects.count() == 1


def test_create_with_an_unknown_tier_writes_nothing():
    with pytest.raises(problems.ValidationFailed):
        account_create(email="cook@example.com", tier="sommelier")
    assert not User.objects.exists() and not Account.objects.exists()


def test_tier_change_applies_to_every_key_on_the_next_request(account, key_and_secret):
    _, secret = key_and_secret
    assert principal_of(secret).tier == "taster"  # cached now
    account_set_tier(account=account, tier="head_chef")
    principal = principal_of(secret)
    assert principal.tier == "head_chef"
    assert principal.limits == tier_limits("head_chef")


def test_taster_to_paid_starts_a_billing_period_now(account, clock):
    account = account_set_tier(account=account, tier="sous_chef")
    assert account.billing_anchor == T0


def test_upgrade_between_paid_tiers_keeps_the_renewal_date(account, clock):
    account_set_tier(account=account, tier="sous_chef")
    clock.shift(dt.timedelta(days=12))
    account = account_set_tier(account=account, tier="head_chef")
    assert account.billing_anchor == T0
    assert account.limits.quota == 2_000_000


def test_downgrade_to_taster_clears_the_billing_period(account, clock):
    account_set_tier(account=account, tier="sous_chef")
    account = account_set_tier(account=account, tier="taster")
    assert account.billing_anchor is None


def test_executive_chef_gets_table_defaults_or_negotiated_limits(account):
    account = account_set_tier(account=account, tier="executive_chef")
    assert account.limits == tier_limits("executive_chef")
    custom = TierLimits(quota=5_000, window="day", rate=None, burst=None)
    account = account_set_tier(account=account, tier="executive_chef", custom=custom)
    assert Account.objects.get(pk=account.pk).limits == custom
    assert account.billing_anchor is None  # a daily window has no billing period


def test_custom_limits_are_refused_on_other_tiers(account):
    custom = TierLimits(quota=5_000, window="month", rate=5.0, burst=5)
    with pytest.raises(problems.ValidationFailed):
        account_set_tier(account=account, tier="sous_chef", custom=custom)
    assert Account.objects.get(pk=account.pk).tier == "taster"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"quota": -1, "window": "day", "rate": None, "burst": None},
        {"quota": 1, "window": "week", "rate": None, "burst": None},
        {"quota": 1, "window": "day", "rate": 1.0, "burst": None},
        {"quota": 1, "window": "day", "rate": 0.0, "burst": 3},
    ],
)
def test_tier_limits_refuse_inconsistent_values(kwargs):
    with pytest.raises(ValueError):
        TierLimits(**kwargs)


@pytest.mark.parametrize("market", ["US", "us"])
def test_market_is_chosen_and_seen_by_keys(account, key_and_secret, market):
    account.market = ""
    account.save()
    _, secret = key_and_secret
    assert principal_of(secret).market == ""
    account_set_market(account=account, market=market)
    assert Account.objects.get(pk=account.pk).market == "US"
    assert principal_of(secret).market == "US"


@pytest.mark.parametrize("market", ["ZZ", "USA", "", 7, None, "U$"])
def test_market_not_offered_or_malformed_is_refused(account, market):
    with pytest.raises(problems.ValidationFailed) as excinfo:
        account_set_market(account=account, market=market, offered=["US", "IN"])
    assert excinfo.value.body()["errors"][0]["field"] == "market"
    assert Account.objects.get(pk=account.pk).market == "US"
