"""The playground (issue 40.2): an analysis from the dashboard, metered on the chosen key
exactly as POST /v1/analysis is, shown with its nutrition label and the code sending the
same request; on both backends."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.models import Account
from accounts.services import account_set_tier
from keys.selectors import principal_build
from keys.services import key_create, key_revoke
from metering.selectors import usage_summary
from metering.services import usage_consume
from metering.throttling import meter_now
from tests.factories import FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db
URL = "/playground/"


@pytest.fixture
def butter(db: None) -> None:
    FoodFactory(name="Butter, salted", portions=[{"description": "1 tbsp", "gram_weight": 14.2}],
                nutrients={"208": 717.0, "204": 81.11, "606": 51.37, "307": 643.0})  # fmt: skip


def _post(client: Client, key_id: int, meal: str = "2 tbsp butter", **extra: object):
    return client.post(URL, {"key": key_id, "reading": "ingredients", "meal": meal, **extra})


def _used(account: Account) -> int:
    return usage_summary(account=account).used


def test_the_page_offers_the_accounts_usable_keys_only(owner_client, verified):
    account = verified
    key_create(account=account, label="laptop")
    old, _ = key_create(account=account, label="old one")
    key_revoke(key=old)
    page = owner_client.get(URL).content.decode()
    assert "laptop" in page and "old one" not in page
    assert "one request on the meter" in page  # said on the page


def test_an_analysis_is_metered_on_the_key_and_shows_the_label_and_the_code(
    owner_client, verified, butter
):
    account = verified
    key, _ = key_create(account=account, label="laptop")
    before = _used(account)
    response = _post(owner_client, key.pk, "4 tbsp butter", servings=2)
    assert response.status_code == 200
    page = response.content.decode()
    assert _used(account) == before + 1  # one unit, like POST /v1/analysis
    assert "Butter, salted" in page and "56.8" in page  # the line's food and grams
    assert "Nutrition Facts" in page and "per serving (1 of 2)" in page
    assert re.search(r"Total Fat</th>\s*<td>23g</td>\s*<td>30%</td>", page)
    assert "curl -s -H &quot;X-API-Key: $KEY&quot;" in page and "/v1/analysis" in page
    assert "svc_sk_live_" not in page  # never a secret


def test_a_bad_body_says_what_the_api_would_answer_and_counts(owner_client, verified, butter):
    key, _ = key_create(account=verified, label="laptop")
    before = _used(verified)
    response = _post(owner_client, key.pk, "2 tbsp butter", servings=2, reading="text")
    assert response.status_code == 200
    # a text of one item is fine; a line over the limit is the API's 400
    response = _post(owner_client, key.pk, "x" * 600)
    page = response.content.decode()
    assert "The API would answer with an error" in page
    assert _used(verified) == before + 2


def test_a_spent_quota_refuses_without_counting(owner_client, verified, butter, clock):
    account = verified
    key, _ = key_create(account=account, label="laptop")
    principal = principal_build(key=key)
    for _ in range(account.limits.quota):  # a request every 15 s: never the burst limit
        assert usage_consume(principal=principal, now=meter_now()).allowed
        clock.shift(15)
    response = _post(owner_client, key.pk)
    assert response.status_code == 429
    page = response.content.decode()
    assert "Refused by the quota (not counted)" in page and "Upgrade" in page
    assert _used(account) == account.limits.quota


def test_a_paid_account_names_the_market_a_taster_does_not(owner_client, verified):
    key_create(account=verified, label="laptop")
    page = owner_client.get(URL).content.decode()
    assert 'type="hidden" name="market"' in page
    account_set_tier(account=verified, tier="sous_chef")
    page = owner_client.get(URL).content.decode()
    assert '<select name="market"' in page and "Every market" in page


def test_the_form_needs_csrf(verified, owner_client):
    key, _ = key_create(account=verified, label="laptop")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(verified.owner)
    response = strict.post(URL, {"key": key.pk, "reading": "ingredients", "meal": "1 egg"})
    assert response.status_code == 403


def test_without_a_usable_key_the_page_says_how_to_get_one(owner_client, verified):
    page = owner_client.get(URL).content.decode()
    assert "You have no key that can make a request" in page and "/keys/" in page


def test_a_foods_page_shows_its_label_and_its_measures(owner_client, verified, butter):
    from catalogue.models import Food

    food = Food.objects.get(name="Butter, salted")
    page = owner_client.get(f"/foods/{food.public_id}/").content.decode()
    assert "<h1>Butter, salted</h1>" in page and "Nutrition Facts" in page
    assert "1 tbsp" in page and "14.2" in page  # its household measure
    assert f"GET /v1/foods/{food.public_id}" in page


def test_a_food_the_account_cannot_read_is_not_found(owner_client, verified):
    from tests.factories import MarketFactory

    india = MarketFactory(code="IN", name="India")
    FoodFactory(public_id="ifct-Z002", source="ifct", data_type="ifct2017", market=india,
                name="Dal of India")  # fmt: skip
    assert owner_client.get("/foods/ifct-Z002/").status_code == 404  # a Taster of US
    assert owner_client.get("/foods/no-such-food/").status_code == 404
    account_set_tier(account=verified, tier="sous_chef")
    indian = owner_client.get("/foods/ifct-Z002/")  # every market
    assert indian.status_code == 200
    page = indian.content.decode()  # India's panel: FSSAI's % of RDA
    assert "Nutrition Information" in page and "% RDA*" in page and "FSSAI" in page


def test_the_playgrounds_lines_link_to_their_foods(owner_client, verified, butter):
    key, _ = key_create(account=verified, label="laptop")
    page = _post(owner_client, key.pk, "1 tbsp butter").content.decode()
    assert re.search(r'<a href="/foods/[^"/]+/">Butter, salted</a>', page)


def _search(client: Client, key_id: int, q: str = "butter", **extra: object):
    return client.post(URL, {"action": "search", "search-key": key_id, "search-q": q, **extra})


def test_a_search_is_metered_on_the_key_lists_foods_and_is_in_its_usage_log(
    owner_client, verified, butter
):
    from metering.models import KeyRequest, KeyRequestOutcome
    from metering.outcomes import outcomes_flush

    FoodFactory(name="Peanut butter, smooth", nutrients={"208": 588.0})
    FoodFactory(name="Apple, raw", nutrients={"208": 52.0})
    key, _ = key_create(account=verified, label="laptop")
    before = _used(verified)
    response = _search(owner_client, key.pk, "butter")
    assert response.status_code == 200
    page = response.content.decode()
    assert _used(verified) == before + 1  # one unit, like GET /v1/foods
    found = re.search(r'<table class="stack-sm found-table">.*?</table>', page, re.S).group(0)
    assert "Butter, salted" in found and "Peanut butter, smooth" in found
    assert "Apple" not in found
    assert "717 kcal" in found
    assert re.search(r'href="/foods/[^"]+/">Butter, salted</a>', found)  # its food page
    assert "/v1/foods?q=butter" in page  # the same request from code
    outcomes_flush()
    (row,) = KeyRequestOutcome.objects.filter(key=key)
    assert (row.endpoint, row.status, row.counted, row.requests) == ("GET /v1/foods", 200, True, 1)
    assert KeyRequest.objects.get(key=key).path == "/playground/"


def test_a_taster_search_reads_its_market_and_a_spent_quota_refuses_it(
    owner_client, verified, butter, clock
):
    from metering.models import KeyRequestOutcome
    from metering.outcomes import outcomes_flush

    FoodFactory(name="Butter, ghee", market=MarketFactory(code="IN", name="India"),
                nutrients={"208": 900.0})  # fmt: skip
    key, _ = key_create(account=verified, label="laptop")
    page = _search(owner_client, key.pk, "butter").content.decode()
    assert "Butter, salted" in page and "ghee" not in page  # market US only
    principal = principal_build(key=key)
    while usage_consume(principal=principal, now=meter_now()).refused_by != "quota":
        clock.shift(10)  # within the burst limit
    clock.shift(10)
    refused = _search(owner_client, key.pk, "butter")
    assert refused.status_code == 429
    assert "Refused by the quota (not counted)" in refused.content.decode()
    outcomes_flush()
    assert KeyRequestOutcome.objects.get(key=key, status=429).kind == "quota-exceeded"


def test_a_search_form_error_costs_nothing(owner_client, verified, butter):
    key, _ = key_create(account=verified, label="laptop")
    before = _used(verified)
    page = _search(owner_client, key.pk, "").content.decode()
    assert _used(verified) == before
    assert "This field is required." in page
    assert 'class="stack-sm found-table"' not in page
