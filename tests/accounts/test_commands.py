"""The account commands: create_account, set_tier, setup_demo (a contract)."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.core.management.base import CommandError

from accounts.models import Account, User
from core.cli import iso
from keys.models import ApiKey
from keys.services import key_revoke
from tests.support.keys import principal_of

pytestmark = pytest.mark.django_db

UTC = dt.UTC


def as_json(output: str) -> dict:
    payload = json.loads(output)  # fails on anything around the one object
    assert isinstance(payload, dict)
    return payload


# --- create_account ----------------------------------------------------------------


def test_create_account_json_is_id_email_tier_and_a_null_market(run_command):
    payload = as_json(run_command("create_account", "Cook@Example.com", "--json"))
    account = Account.objects.get(owner__email="cook@example.com")
    assert payload == {
        "id": account.pk,
        "email": "cook@example.com",
        "tier": "taster",
        "market": None,
    }


def test_create_account_with_tier_market_and_password(run_command):
    output = run_command(
        "create_account", "chef@example.com", "--tier", "sous_chef", "--market", "us",
        "--password", "a long enough passphrase",
    )  # fmt: skip
    account = Account.objects.get(owner__email="chef@example.com")
    assert output.strip() == (
        f"Created account {account.pk} for chef@example.com (tier sous_chef, market US)."
    )
    assert (account.tier, account.market) == ("sous_chef", "US")
    assert account.billing_anchor is not None
    assert account.owner.check_password("a long enough passphrase")


def test_create_account_without_password_cannot_sign_in(run_command):
    run_command("create_account", "nopass@example.com")
    assert not User.objects.get(email="nopass@example.com").has_usable_password()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["not-an-email"], "email: Enter a valid e-mail address."),
        (["new@example.com", "--tier", "gold"], "tier: Unknown tier 'gold'"),
        (["new@example.com", "--market", "ZZ"], "market: ZZ is not offered"),
        (["new@example.com", "--market", "USA"], "market: A two-letter ISO 3166-1 country code."),
    ],
)
def test_create_account_refuses_bad_input_and_creates_nothing(run_command, args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        run_command("create_account", *args)
    assert not User.objects.exists()


def test_create_account_refuses_a_duplicate_email(run_command, account):
    with pytest.raises(CommandError, match="already exists"):
        run_command("create_account", account.owner.email.upper())
    assert User.objects.count() == 1


# --- set_tier ----------------------------------------------------------------------


def test_set_tier_to_a_paid_tier_starts_a_billing_period(run_command, account, clock):
    payload = as_json(run_command("set_tier", account.owner.email, "sous_chef", "--json"))
    assert payload == {
        "email": account.owner.email,
        "tier": "sous_chef",
        "quota": 250_000,
        "window": "month",
        "rate": 10.0,
        "burst": 50,
        "renewal": "2026-04-10T14:00:00Z",
    }


def test_upgrading_between_paid_tiers_keeps_the_renewal_date(run_command, account, clock):
    run_command("set_tier", account.owner.email, "sous_chef")
    clock.move_to(dt.datetime(2026, 5, 20, 9, 0, tzinfo=UTC))
    payload = as_json(run_command("set_tier", account.owner.email, "head_chef", "--json"))
    assert (payload["quota"], payload["rate"], payload["burst"]) == (2_000_000, None, None)
    assert payload["renewal"] == "2026-06-10T14:00:00Z"


def test_set_tier_to_taster_has_no_renewal(run_command, paid_key_and_secret):
    key, _ = paid_key_and_secret
    payload = as_json(run_command("set_tier", key.account.owner.email, "taster", "--json"))
    assert (payload["window"], payload["renewal"]) == ("day", None)


def test_executive_chef_without_custom_values_gets_the_tier_table(run_command, account, settings):
    settings.FOODSERVICE_TIERS = {
        **settings.FOODSERVICE_TIERS,
        "executive_chef": {"quota": 777, "window": "month", "rate": 3.0, "burst": 9},
    }
    payload = as_json(run_command("set_tier", account.owner.email, "executive_chef", "--json"))
    assert (payload["quota"], payload["window"], payload["rate"], payload["burst"]) == (
        777, "month", 3.0, 9,
    )  # fmt: skip
    assert Account.objects.get(pk=account.pk).custom_quota is None


def test_partial_custom_values_fill_the_rest_from_the_tier_table(run_command, account, settings):
    defaults = settings.FOODSERVICE_TIERS["executive_chef"]
    email = account.owner.email
    payload = as_json(run_command("set_tier", email, "executive_chef", "--quota", "5", "--json"))
    assert payload["quota"] == 5
    assert (payload["window"], payload["rate"], payload["burst"]) == (
        defaults["window"], defaults["rate"], defaults["burst"],
    )  # fmt: skip
    stored = Account.objects.get(pk=account.pk)
    assert (stored.custom_quota, stored.custom_burst) == (5, defaults["burst"])


def test_custom_daily_unthrottled_limits(run_command, account):
    output = run_command(
        "set_tier", account.owner.email, "executive_chef",
        "--quota", "900", "--window", "day", "--unthrottled",
    )  # fmt: skip
    assert output.strip() == (
        f"{account.owner.email} is on executive_chef: 900 requests per day "
        "(rolling daily window); unthrottled."
    )
    limits = Account.objects.get(pk=account.pk).limits
    assert (limits.quota, limits.window, limits.rate, limits.burst) == (900, "day", None, None)


def test_set_tier_human_output_names_the_renewal(run_command, account, clock):
    output = run_command("set_tier", account.owner.email, "sous_chef")
    assert output.strip() == (
        f"{account.owner.email} is on sous_chef: 250000 requests per month "
        "(renews 2026-04-10T14:00:00Z); 10/s, burst 50."
    )


def test_a_tier_change_applies_to_the_accounts_keys_at_once(run_command, key_and_secret):
    key, secret = key_and_secret
    assert principal_of(secret).tier == "taster"  # now cached on Redis
    run_command("set_tier", key.account.owner.email, "head_chef")
    principal = principal_of(secret)
    assert principal.tier == "head_chef"
    assert principal.limits.unthrottled


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["gold"], "tier: Unknown tier 'gold'"),
        (["sous_chef", "--quota", "5"], "Custom limits are for executive_chef only."),
        (["taster", "--unthrottled"], "Custom limits are for executive_chef only."),
        (["executive_chef", "--quota", "-1"], "Invalid custom limits: quota must not be negative"),
        (["executive_chef", "--rate", "0"], "Invalid custom limits: rate must be positive"),
        (["executive_chef", "--burst", "0"], "Invalid custom limits: rate must be positive"),
        (["executive_chef", "--unthrottled", "--burst", "5"], "--unthrottled takes no --burst."),
        (["executive_chef", "--unthrottled", "--rate", "5"], "not allowed with argument"),
        (["executive_chef", "--quota", "lots"], "argument --quota: invalid int value"),
    ],
)
def test_set_tier_refuses_bad_input_and_changes_nothing(run_command, account, args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        run_command("set_tier", account.owner.email, *args)
    stored = Account.objects.get(pk=account.pk)
    assert (stored.tier, stored.custom_quota) == ("taster", None)


def test_set_tier_for_an_unknown_email_fails(run_command, db):
    with pytest.raises(CommandError, match="No account with e-mail"):
        run_command("set_tier", "nobody@example.com", "sous_chef")


def test_iso_is_utc_to_the_second():
    moment = dt.datetime(2026, 3, 10, 15, 25, 1, 999, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert iso(moment) == "2026-03-10T14:25:01Z"
    assert iso(None) is None


# --- setup_demo --------------------------------------------------------------------


def demo_secret(output: str) -> str:
    return re.search(r"X-API-Key: (svc_sk_live_\w+)", output).group(1)


def test_setup_demo_prints_a_working_key_and_a_curl_line(run_command, api_client):
    output = run_command("setup_demo", "--host", "0.0.0.0", "--port", "8121")  # noqa: S104
    secret = demo_secret(output)
    assert f'curl -H "X-API-Key: {secret}" "http://127.0.0.1:8121/v1/foods?q=butter"' in output
    assert f"export KEY={secret} BASE=http://127.0.0.1:8121\n" in output + "\n"
    account = Account.objects.get(owner__email="demo@example.com")
    assert (account.tier, account.market) == ("taster", "US")
    response = api_client.get("/v1/market", headers={"X-API-Key": secret})
    assert response.status_code == 200
    assert response.json()["data"]["market"] == "US"


def test_setup_demo_again_rotates_the_demo_key(run_command, api_client):
    first = demo_secret(run_command("setup_demo"))
    assert api_client.get("/v1/market", headers={"X-API-Key": first}).status_code == 200
    second = demo_secret(run_command("setup_demo"))
    assert second != first
    assert api_client.get("/v1/market", headers={"X-API-Key": first}).status_code == 401
    assert api_client.get("/v1/market", headers={"X-API-Key": second}).status_code == 200
    assert Account.objects.count() == 1
    assert ApiKey.objects.count() == 1


def test_setup_demo_creates_a_new_key_when_the_demo_key_was_revoked(run_command):
    run_command("setup_demo")
    key_revoke(key=ApiKey.objects.get())
    secret = demo_secret(run_command("setup_demo"))
    assert principal_of(secret) is not None
    assert ApiKey.objects.count() == 2


def test_setup_demo_has_no_json_option(run_command, db):
    with pytest.raises(CommandError, match="unrecognized arguments: --json"):
        run_command("setup_demo", "--json")
