"""The staff admin for users and accounts."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Account, User
from accounts.services import account_set_tier
from tests.conftest import T0
from tests.factories import AccountFactory, UserFactory
from tests.support.keys import principal_of

pytestmark = pytest.mark.django_db

USERS = "/admin/accounts/user/"
ACCOUNTS = "/admin/accounts/account/"


def change_account(client: Client, account: Account, **fields: object):
    """POST the account's change form with its current values updated by ``fields``."""
    data = {
        "tier": account.tier,
        "custom_quota": "",
        "custom_window": "",
        "custom_rate": "",
        "custom_burst": "",
        **{k: "" if v is None else v for k, v in fields.items()},
    }
    return client.post(f"{ACCOUNTS}{account.pk}/change/", data)


# --- users -------------------------------------------------------------------------


@pytest.mark.parametrize("changelist", [USERS, ACCOUNTS])
def test_changelists_search_by_email(admin_client, changelist):
    AccountFactory(owner__email="alice@example.com")
    AccountFactory(owner__email="bob@example.com")
    response = admin_client.get(changelist, {"q": "bob@"})
    assert response.status_code == 200
    assert b"bob@example.com" in response.content
    assert b"alice@example.com" not in response.content


def test_user_change_page_has_no_username(admin_client):
    user = UserFactory()
    response = admin_client.get(f"{USERS}{user.pk}/change/")
    assert response.status_code == 200
    assert b'name="email"' in response.content
    assert b'name="username"' not in response.content


def test_staff_can_add_a_user_by_email(admin_client):
    response = admin_client.post(
        f"{USERS}add/",
        {
            "email": "New.Staff@Example.com",
            "usable_password": "true",
            "password1": "a long enough passphrase",
            "password2": "a long enough passphrase",
        },
    )
    assert response.status_code == 302, response.content
    assert User.objects.get(email="new.staff@example.com").check_password(
        "a long enough passphrase"
    )


def test_a_user_who_owns_an_account_is_not_deleted_here(admin_client, key_and_secret):
    key, secret = key_and_secret
    owner = key.account.owner
    response = admin_client.post(f"{USERS}{owner.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    assert User.objects.filter(pk=owner.pk).exists()
    assert principal_of(secret) is not None


def test_a_staff_user_without_an_account_can_be_deleted(admin_client):
    staff = UserFactory(is_staff=True)
    response = admin_client.post(f"{USERS}{staff.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not User.objects.filter(pk=staff.pk).exists()


# --- accounts ----------------------------------------------------------------------


def test_account_changelist_filters_by_tier_and_market(admin_client):
    taster = AccountFactory(owner__email="taster@example.com", market="US")
    paid = AccountFactory(owner__email="paid@example.com")
    account_set_tier(account=paid, tier="sous_chef")
    by_tier = admin_client.get(ACCOUNTS, {"tier__exact": "sous_chef"})
    assert b"paid@example.com" in by_tier.content
    assert b"taster@example.com" not in by_tier.content
    by_market = admin_client.get(ACCOUNTS, {"market__exact": "US"})
    assert taster.owner.email.encode() in by_market.content
    assert b"paid@example.com" not in by_market.content


def test_account_change_page_shows_the_next_renewal(admin_client, account, clock):
    account_set_tier(account=account, tier="sous_chef")
    response = admin_client.get(f"{ACCOUNTS}{account.pk}/change/")
    assert response.status_code == 200
    assert b"2026-04-10T14:00:00Z" in response.content


def test_accounts_are_not_added_or_deleted_here(admin_client, account):
    assert admin_client.get(f"{ACCOUNTS}add/").status_code == 403
    assert admin_client.post(f"{ACCOUNTS}{account.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Account.objects.filter(pk=account.pk).exists()


def test_a_tier_change_in_the_admin_applies_to_the_keys(admin_client, key_and_secret, clock):
    key, secret = key_and_secret
    assert principal_of(secret).tier == "taster"  # now cached on Redis
    response = change_account(admin_client, key.account, tier="sous_chef")
    assert response.status_code == 302
    principal = principal_of(secret)
    assert principal.tier == "sous_chef"
    assert principal.limits.quota == 250_000
    # The service, not a bare save, made the change: it started a billing period.
    assert Account.objects.get(pk=key.account.pk).billing_anchor == T0


def test_executive_chef_custom_limits_in_the_admin(admin_client, key_and_secret):
    key, secret = key_and_secret
    response = change_account(
        admin_client, key.account, tier="executive_chef", custom_quota=42, custom_window="day"
    )
    assert response.status_code == 302
    limits = principal_of(secret).limits
    assert (limits.quota, limits.window, limits.rate, limits.burst) == (42, "day", None, None)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"tier": "sous_chef", "custom_quota": 5}, "Custom limits are for Executive Chef only."),
        ({"tier": "executive_chef", "custom_rate": 5}, "Set a custom quota"),
        (
            {"tier": "executive_chef", "custom_quota": 5, "custom_rate": 5},
            "rate and burst are both set or both unthrottled",
        ),
    ],
)
def test_invalid_custom_limits_are_refused_in_the_form(admin_client, account, fields, message):
    response = change_account(admin_client, account, **fields)
    assert response.status_code == 200
    assert message in response.content.decode()
    stored = Account.objects.get(pk=account.pk)
    assert (stored.tier, stored.custom_quota) == ("taster", None)
