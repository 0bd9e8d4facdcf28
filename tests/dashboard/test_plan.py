"""Plan and billing (issue 5.3; spec 3.3, 8.1, 8.3): limits, renewal, usage, changing
tier with the rules shown first, and the honest no-payment note."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from accounts.models import Account
from accounts.services import account_set_tier
from accounts.tiers import tier_limits
from foodservice.dashboard.forms import tier_change_rules
from keys.services import key_create
from tests.support.keys import principal_of

pytestmark = pytest.mark.django_db


def test_plan_page_shows_tier_quota_window_burst_and_usage(owner_client):
    page = owner_client.get("/plan/").content.decode()
    assert "Current plan: Taster" in page
    assert '<dd id="plan-quota">250 requests</dd>' in page
    assert "Rolling 24 hours, freed hour by hour" in page
    assert "1 request/s, bursts of up to 10" in page
    assert "No renewal" in page
    assert "<meter" in page and "0 of 250" in page


def test_plan_page_says_no_payment_provider_is_connected(owner_client):
    assert "No payment provider is connected yet." in owner_client.get("/plan/").content.decode()


def test_paid_plan_shows_its_renewal_date(owner_client, verified, clock):
    account_set_tier(account=verified, tier="sous_chef")  # anchor: T0 = 10 Mar 2026 14:25
    page = owner_client.get("/plan/").content.decode()
    assert "Current plan: Sous Chef" in page
    assert "10 April 2026, 14:00 UTC" in page
    assert "10 requests/s, bursts of up to 50" in page


def test_change_shows_the_rules_before_anything_changes(owner_client, verified):
    page = owner_client.get("/plan/change/?tier=sous_chef").content.decode()
    assert "Switch to Sous Chef?" in page
    assert "takes effect at once for every key" in page
    assert "250,000 requests per month" in page
    assert "nothing is charged" in page
    verified.refresh_from_db()
    assert verified.tier == "taster"


def test_confirming_changes_the_tier_for_every_key_at_once(owner_client, verified):
    _, secret = key_create(account=verified, label="a")
    assert principal_of(secret).tier == "taster"
    response = owner_client.post("/plan/change/", {"tier": "head_chef"}, follow=True)
    assert "You are now on Head Chef" in response.content.decode()
    verified.refresh_from_db()
    assert verified.tier == "head_chef"
    assert principal_of(secret).limits == tier_limits("head_chef")


def test_upgrade_between_paid_tiers_keeps_the_renewal_date(owner_client, verified, clock):
    account_set_tier(account=verified, tier="sous_chef")
    anchor = Account.objects.get(pk=verified.pk).billing_anchor
    clock.shift(dt.timedelta(days=5))
    page = owner_client.get("/plan/change/?tier=head_chef").content.decode()
    assert "Your renewal date stays the same" in page
    assert "Renewal date: 10 April 2026." in page
    owner_client.post("/plan/change/", {"tier": "head_chef"})
    assert Account.objects.get(pk=verified.pk).billing_anchor == anchor


def test_downgrade_to_taster_is_allowed_and_explained(owner_client, verified):
    account_set_tier(account=verified, tier="sous_chef")
    page = owner_client.get("/plan/change/?tier=taster").content.decode()
    assert "rolling 24 hours" in page and "the billing period ends" in page
    owner_client.post("/plan/change/", {"tier": "taster"})
    assert Account.objects.get(pk=verified.pk).tier == "taster"


@pytest.mark.parametrize(
    ("tier", "said"),
    [
        ("taster", "The account is already on Taster."),
        ("executive_chef", "Executive Chef is set up with our team"),
        ("gold", "That plan cannot be chosen here. Choose one of the plans below."),
        ("", "Choose a plan below."),
    ],
)
def test_current_negotiated_or_unknown_tiers_are_refused(owner_client, verified, tier, said):
    response = owner_client.post("/plan/change/", {"tier": tier}, follow=True)
    assert response.redirect_chain[-1][0] == "/plan/"
    page = response.content.decode()
    assert 'class="alert alert--error"' in page and said in page
    assert Account.objects.get(pk=verified.pk).tier == "taster"


@pytest.mark.parametrize("query", ["?tier=executive_chef", "?tier=<b>x</b>", "?tier=", ""])
def test_a_forced_tier_in_the_url_gets_a_clear_message_not_a_form_error(owner_client, query):
    response = owner_client.get(f"/plan/change/{query}", follow=True)
    page = response.content.decode()
    assert response.redirect_chain[-1][0] == "/plan/"
    assert "Select a valid choice" not in page and "<b>x</b>" not in page
    assert re.search(r'alert--error" role="alert">[A-Z][^<]+\.</div>', page)


def test_plan_cards_show_prices_from_settings_and_a_contact_link(owner_client, settings):
    settings.PLAN_PRICES = {**settings.PLAN_PRICES, "head_chef": "EUR 180 a month"}
    settings.SALES_CONTACT_URL = "mailto:sales@example.com"
    page = owner_client.get("/plan/").content.decode()
    assert "EUR 180 a month" in page
    assert settings.PLAN_PRICES["sous_chef"] in page
    assert "No payment provider is connected yet." in page and "nothing is charged" in page
    assert '<a href="mailto:sales@example.com">contact sales</a>' in page
    assert "One: United States (US)" in page
    assert "<h1>Plan &amp; billing</h1>" in page  # the same words as the navigation


def test_rules_for_a_paid_downgrade_warn_about_usage_over_the_new_quota():
    rules = tier_change_rules(old=tier_limits("head_chef"), new=tier_limits("sous_chef"))
    assert any("lower quota applies immediately" in r for r in rules)
    assert any("renewal date stays the same" in r for r in rules)


def test_rules_for_an_upgrade_from_taster_start_a_billing_period():
    rules = tier_change_rules(old=tier_limits("taster"), new=tier_limits("sous_chef"))
    assert any("billing period starts now" in r for r in rules)
    assert any("1 request/s, bursts of up to 10 now" in r for r in rules)


def test_the_plans_come_before_the_alerts_and_the_confirm_page_shows_the_price(owner_client):
    # issue 40.5: upgrading was a hunt below two alert cards, and the price was not shown
    page = owner_client.get("/plan/").content.decode()
    assert page.index('id="plans"') < page.index('id="quota-alerts"')
    assert page.index('id="plans"') < page.index('id="expiry-alerts"')
    confirm = owner_client.get("/plan/change/?tier=sous_chef").content.decode()
    assert "<dt>Price</dt><dd>Free</dd>" in confirm
    assert "<dt>Price</dt><dd>US$49 a month</dd>" in confirm
