"""catalogue/policies.py: the ``market`` a foods request names (issue 36.6). A market
the catalogue does not offer (``markets_offered()``) is the ``invalid-parameter`` 400
naming ``market`` on every tier, never an empty 200; both backends."""

from __future__ import annotations

import pytest

from catalogue.selectors import catalogue_cache_forget
from tests.factories import FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_markets(db: None) -> None:
    FoodFactory(name="Butter, US", market=MarketFactory(code="US"))
    FoodFactory(name="Butter, CA", market=MarketFactory(code="CA", name="Canada"))
    MarketFactory(code="MX", name="Mexico")  # a market row without foods: not offered


def _refused(response, detail: str) -> None:
    assert response.status_code == 400, response.content
    problem = response.json()
    assert problem["type"] == "/problems/invalid-parameter"
    assert problem["errors"] == [{"parameter": "market", "detail": detail}]
    assert "RateLimit-Remaining" in response  # counted like any read


UNKNOWN = "{code} is not a market of the catalogue; offered: CA, US."


@pytest.mark.parametrize("market", ["XX", "xx", "MX"])
def test_a_paid_tier_naming_a_market_not_offered_gets_a_400(two_markets, paid, market):
    response = paid.get("/v1/foods", {"q": "butter", "market": market})
    _refused(response, UNKNOWN.format(code=market.upper()))


def test_a_paid_tier_naming_an_offered_market_reads_it(two_markets, paid):
    response = paid.get("/v1/foods", {"q": "butter", "market": "ca"})
    assert response.status_code == 200
    assert [f["name"] for f in response.json()["data"]] == ["Butter, CA"]
    assert response.json()["meta"]["market"] == "CA"


def test_a_paid_tier_without_market_reads_every_market(two_markets, paid):
    body = paid.get("/v1/foods", {"q": "butter"}).json()
    assert {f["market"] for f in body["data"]} == {"US", "CA"}
    assert body["meta"]["market"] is None


def test_a_taster_naming_a_market_not_offered_gets_the_same_400(two_markets, taster):
    _refused(taster.get("/v1/foods", {"q": "butter", "market": "XX"}), UNKNOWN.format(code="XX"))


def test_a_taster_naming_another_offered_market_is_told_it_reads_its_own(two_markets, taster):
    response = taster.get("/v1/foods", {"q": "butter", "market": "CA"})
    _refused(response, "The Taster tier reads its own market only (US).")


def test_a_taster_naming_its_own_market_reads_it(two_markets, taster):
    response = taster.get("/v1/foods", {"q": "butter", "market": "us"})
    assert response.status_code == 200
    assert [f["name"] for f in response.json()["data"]] == ["Butter, US"]


def test_a_taster_without_a_market_is_told_to_choose_one_first(two_markets, taster_no_market):
    response = taster_no_market.get("/v1/foods", {"q": "butter", "market": "XX"})
    assert response.status_code == 403
    assert response.json()["type"] == "/problems/market-not-selected"


def test_a_market_loaded_later_is_offered_once_the_cache_is_dropped(two_markets, paid):
    assert paid.get("/v1/foods", {"q": "butter", "market": "MX"}).status_code == 400
    FoodFactory(name="Butter, MX", market=MarketFactory(code="MX"))
    catalogue_cache_forget()  # what a load does when it commits
    response = paid.get("/v1/foods", {"q": "butter", "market": "MX"})
    assert [f["name"] for f in response.json()["data"]] == ["Butter, MX"]
