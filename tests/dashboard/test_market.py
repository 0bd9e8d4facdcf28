"""Market choice (issue 5.4; spec 3.2): the offered markets, the PUT /v1/market rules."""

from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from accounts.models import Account
from keys.services import key_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_market_client(client, unverified):
    Account.objects.filter(pk=unverified.pk).update(market="")
    client.force_login(unverified.owner)
    return client


def test_market_page_offers_the_catalogues_markets(no_market_client):
    with override_settings(DEFAULT_MARKETS=["US", "GB"]):
        page = no_market_client.get("/market/").content.decode()
    assert '<option value="GB">GB</option>' in page  # no name known: the code
    assert '<option value="US">United States (US)</option>' in page
    assert "not chosen" in page
    assert '<option value="" selected>Choose a market…</option>' in page


def test_overview_asks_a_taster_to_choose_a_market(no_market_client):
    assert "Choose your market." in no_market_client.get("/").content.decode()


def test_choosing_a_market_saves_it_for_every_key(no_market_client, unverified):
    _, secret = key_create(account=unverified, label="a")
    response = no_market_client.post("/market/", {"market": "US"}, follow=True)
    assert "Your market is now United States (US)." in response.content.decode()
    assert Account.objects.get(pk=unverified.pk).market == "US"
    body = APIClient().get("/v1/market", headers={"X-API-Key": secret}).json()
    assert body["data"]["market"] == "US"


def test_saving_without_choosing_is_refused(no_market_client, unverified):
    response = no_market_client.post("/market/", {"market": ""})
    assert "This field is required." in response.content.decode()
    assert Account.objects.get(pk=unverified.pk).market == ""


def test_a_market_not_offered_is_refused(no_market_client, unverified):
    response = no_market_client.post("/market/", {"market": "ZZ"})
    assert response.status_code == 200
    assert "Select a valid choice." in response.content.decode()
    assert Account.objects.get(pk=unverified.pk).market == ""


def test_a_market_withdrawn_between_page_and_post_is_refused_by_the_service(
    no_market_client, unverified
):
    from foodservice.dashboard.forms import MarketForm

    form = MarketForm({"market": "GB"}, account=unverified, offered=[("GB", "United Kingdom")])
    assert form.is_valid()
    assert form.save() is None  # the service offers only US
    assert "GB is not offered" in str(form.errors)


def test_the_market_page_says_what_the_market_does_on_each_tier(client, verified):
    # issue 40.4: a paid plan reads every market unless a request names one; the page
    # no longer calls the saved market a default that no request applies
    from accounts.services import account_set_tier

    client.force_login(verified.owner)
    taster = client.get("/market/").content.decode()
    assert "one market, shared by all its keys" in taster
    account_set_tier(account=verified, tier="sous_chef")
    paid = client.get("/market/").content.decode()
    assert "reads every market" in paid and "?market=IN" in paid
    assert "the account's default" not in paid
