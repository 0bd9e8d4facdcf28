"""Markets come from the catalogue (issue 3, point 6)."""

from __future__ import annotations

import pytest
from django.test import override_settings

from catalogue.selectors import catalogue_cache_forget, markets_offered
from tests.factories import FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db


@override_settings(DEFAULT_MARKETS=["US", "GB"])
def test_empty_catalogue_offers_the_default_markets():
    assert markets_offered() == ["GB", "US"]


@override_settings(DEFAULT_MARKETS=["GB"])
def test_markets_offered_are_those_holding_foods():
    FoodFactory(market=MarketFactory(code="US"))
    FoodFactory(market=MarketFactory(code="CA", name="Canada"))
    MarketFactory(code="MX", name="Mexico")  # no foods: not offered
    catalogue_cache_forget()
    assert markets_offered() == ["CA", "US"]


def test_put_market_accepts_only_offered_markets(sr28_small, taster_no_market):
    refused = taster_no_market.put("/v1/market", {"market": "FR"}, format="json")
    assert refused.status_code == 422
    accepted = taster_no_market.put("/v1/market", {"market": "us"}, format="json")
    assert accepted.status_code == 200
    assert taster_no_market.get("/v1/market").json()["data"]["markets_offered"] == ["US"]


@override_settings(DEFAULT_MARKETS=["GB"])
def test_loading_a_catalogue_refreshes_the_cached_markets(db):
    from catalogue.importers.load import catalogue_load
    from tests.catalogue.conftest import DATA

    assert markets_offered() == ["GB"]  # cached while empty
    catalogue_load(source="sr28", path=DATA / "sr28", limit=1)
    assert markets_offered() == ["US"]
