"""Every /v1 answer is private to the key that asked (issue 24.4): ``Cache-Control:
private`` and ``Vary`` on both key headers, on every route of the API (each route listed
by the URL resolver, so a route added later is checked too), whatever the status."""

from __future__ import annotations

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from catalogue.importers.load import catalogue_load
from catalogue.models import Category, Food
from keys.services import key_create
from tests.catalogue.conftest import DATA
from tests.factories import AccountFactory, FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db


def assert_private(response) -> None:  # type: ignore[no-untyped-def]
    directives = [d.strip() for d in response["Cache-Control"].split(",")]
    assert "private" in directives, (response.request["PATH_INFO"], response["Cache-Control"])
    varied = {v.strip().lower() for v in response["Vary"].split(",")}
    assert {"x-api-key", "authorization"} <= varied, (response.request["PATH_INFO"], varied)


def api_routes() -> list[str]:
    """Every route under /v1/ as the resolver lists it, parameters as ``<name>``."""
    (v1,) = [p for p in get_resolver().url_patterns if str(p.pattern) == "v1/"]

    def walk(patterns: list, prefix: str) -> list[str]:  # type: ignore[type-arg]
        found = []
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                found += walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern) and not str(pattern.pattern).startswith("^"):
                found.append(prefix + str(pattern.pattern))
        return found

    return walk(v1.url_patterns, "/v1/")


@pytest.fixture
def catalogue(db: None) -> dict[str, str]:
    catalogue_load(source="sr28", path=DATA / "sr28")
    india = MarketFactory(code="IN", name="India")
    FoodFactory(source="ifct", source_id="A001", name="Rice, raw", market=india)
    return {
        "public_id": Food.objects.filter(market__code="US").first().public_id,
        "nutrient_id": "203",
        "slug": Category.objects.first().slug,
    }


def client_for(tier: str, market: str) -> APIClient:
    account = AccountFactory(tier=tier, market=market)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_create(account=account, label="k")[1])
    return client


def test_every_api_route_answers_private_and_varies_on_the_key(catalogue):
    taster = client_for("taster", "US")
    routes = api_routes()
    assert {"/v1/market", "/v1/usage", "/v1/foods", "/v1/foods/<str:public_id>"} <= set(routes)
    for route in routes:
        path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: catalogue.get(m[1], "x"), route)
        for method in ("get", "put", "post"):
            assert_private(getattr(taster, method)(path))


@pytest.mark.parametrize(
    ("path", "status"),
    [("/v1/market", 200), ("/v1/usage", 200), ("/v1/foods?q=butter", 200),
     ("/v1/foods/ifct-A001", 404),  # another market's record, for a US Taster
     ("/v1/no-such-route", 404)],
)  # fmt: skip
def test_per_account_bodies_and_problems_are_private(catalogue, path, status):
    response = client_for("taster", "US").get(path)
    assert response.status_code == status
    assert_private(response)


def test_a_market_change_and_refusals_are_private(catalogue):
    taster = client_for("taster", "")
    assert_private(taster.put("/v1/market", {"market": "US"}, format="json"))
    assert_private(APIClient().get("/v1/market"))  # no key: the 401
    assert_private(APIClient().get("/v1/foods", HTTP_X_API_KEY="svc_sk_live_wrong"))


def test_the_catalogue_keeps_its_freshness_and_adds_no_cache_elsewhere(catalogue):
    taster = client_for("taster", "US")
    assert taster.get("/v1/foods/" + catalogue["public_id"])["Cache-Control"] == (
        "private, max-age=60"
    )
    assert taster.get("/v1/usage")["Cache-Control"] == "private, no-cache"
