"""``GET /v1/nutrients`` and ``GET /v1/categories`` (issue 42.5): paged like the foods
list, each item the record by id, cacheable, one unit a request, scoped by market like
the foods reads, every bad parameter a 400 naming it."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import Account
from catalogue.models import Category, Nutrient
from keys.services import key_create
from tests.factories import AccountFactory, CategoryFactory, FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def indian_category(sr28_small) -> Category:
    """A category whose only food is of market IN, beside SR28's 8 US categories."""
    category = CategoryFactory(name="Green Leafy Vegetables")
    FoodFactory(
        source="ifct",
        source_id="A001",
        name="Amaranth leaves",
        data_type="ifct2017",
        category=category,
        market=MarketFactory(code="IN", name="India"),
    )
    return category


@pytest.fixture
def taster_in(db: None) -> APIClient:
    account: Account = AccountFactory(market="IN")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_create(account=account, label="india")[1])
    return client


def walk(client: APIClient, path: str) -> list[dict]:
    """Every item of a list, following ``links.next`` from ``path``."""
    items: list[dict] = []
    while path:
        body = client.get(path).json()
        items += body["data"]
        path = body["links"]["next"]
    return items


def test_nutrients_are_every_nutrient_in_usda_display_order_across_pages(sr28_small, taster):
    expected = list(Nutrient.objects.order_by("rank", "id").values_list("id", flat=True))
    first = taster.get("/v1/nutrients?page_size=40").json()  # Taster: no q needed
    assert first["meta"] == {"offset": 0, "page_size": 40, "count": 40, "total": len(expected)}
    assert first["links"]["self"] == "/v1/nutrients?page_size=40" and first["links"]["prev"] is None
    listed = [n["id"] for n in walk(taster, "/v1/nutrients?page_size=40")]
    assert listed == expected and len(expected) > 100  # several pages, none repeated


def test_a_listed_item_is_the_record_by_id(indian_category, paid):
    nutrients = paid.get("/v1/nutrients?page_size=5").json()["data"]
    for nutrient in nutrients:
        assert nutrient == paid.get(nutrient["links"]["self"]).json()["data"]
    categories = paid.get("/v1/categories").json()["data"]
    assert categories[0] == paid.get(categories[0]["links"]["self"]).json()["data"]


def test_a_cursor_alone_and_a_page_number_read_the_same_page(sr28_small, taster):
    first = taster.get("/v1/nutrients?page_size=10").json()
    after = first["links"]["next"]
    assert "cursor=" in after
    cursor = after.split("cursor=", 1)[1]
    alone = taster.get(f"/v1/nutrients?cursor={cursor}").json()
    numbered = taster.get("/v1/nutrients?page_size=10&page=2").json()
    assert alone["data"] == numbered["data"] == taster.get(after).json()["data"]
    assert alone["meta"]["offset"] == 10 and alone["links"]["prev"] == "/v1/nutrients?page_size=10"
    assert alone["data"][0]["id"] not in {n["id"] for n in first["data"]}


def test_categories_are_listed_by_id_in_every_market_on_a_paid_tier(indian_category, paid):
    every = walk(paid, "/v1/categories?page_size=3")
    ids = [c["id"] for c in every]
    assert ids == sorted(Category.objects.values_list("slug", flat=True)) and len(ids) == 9
    body = paid.get("/v1/categories").json()
    assert body["meta"]["market"] is None and body["meta"]["total"] == 9


@pytest.mark.parametrize(("market", "expected"), [("IN", ["green-leafy-vegetables"]), ("us", 8)])
def test_market_narrows_the_categories_to_those_holding_its_foods(
    indian_category, paid, market, expected
):
    body = paid.get(f"/v1/categories?market={market}").json()
    ids = [c["id"] for c in body["data"]]
    assert body["meta"]["market"] == market.upper()
    if isinstance(expected, int):
        assert len(ids) == expected and "green-leafy-vegetables" not in ids
    else:
        assert ids == expected


def test_a_taster_lists_the_categories_of_its_own_market_only(indian_category, taster, taster_in):
    us = taster.get("/v1/categories?page_size=100").json()
    assert us["meta"]["market"] == "US" and us["meta"]["total"] == 8
    assert "green-leafy-vegetables" not in {c["id"] for c in us["data"]}
    india = taster_in.get("/v1/categories").json()
    assert [c["id"] for c in india["data"]] == ["green-leafy-vegetables"]
    assert taster_in.get("/v1/categories?market=IN").status_code == 200
    other = taster.get("/v1/categories?market=IN")
    assert other.status_code == 400 and other.json()["errors"][0]["parameter"] == "market"


def test_a_taster_without_a_market_may_list_nutrients_but_not_categories(
    sr28_small, taster_no_market
):
    assert taster_no_market.get("/v1/nutrients").status_code == 200
    refused = taster_no_market.get("/v1/categories?page=0&bogus=1")  # checked first
    assert refused.status_code == 403
    assert refused.json()["type"] == "/problems/market-not-selected"


@pytest.mark.parametrize("path", ["/v1/nutrients?page_size=7", "/v1/categories?page=2&page_size=3"])
def test_lists_are_cacheable_and_a_304_is_one_unit(sr28_small, taster, path):
    first = taster.get(path)
    etag = first["ETag"]
    assert etag.startswith('"') and first["Cache-Control"] == "private, max-age=60"
    assert taster.get(path)["ETag"] == etag  # the same bytes, the same tag
    before = int(taster.get(path)["RateLimit-Remaining"])
    again = taster.get(path, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == etag
    assert int(again["RateLimit-Remaining"]) == before - 1


def test_a_page_of_a_hundred_items_costs_one_unit(sr28_small, taster):
    before = int(taster.get("/v1/nutrients/203")["RateLimit-Remaining"])
    page = taster.get("/v1/nutrients?page_size=100")
    assert len(page.json()["data"]) == 100
    assert int(page["RateLimit-Remaining"]) == before - 1


def test_a_change_to_a_nutrient_changes_the_page_and_its_tag(sr28_small, taster):
    first = taster.get("/v1/nutrients?page_size=5")
    Nutrient.objects.filter(id=208).update(name="Energy (renamed)")
    second = taster.get("/v1/nutrients?page_size=5")
    assert "Energy (renamed)" in {n["name"] for n in second.json()["data"]}
    assert second["ETag"] != first["ETag"]


def test_an_empty_catalogue_lists_nothing_on_the_first_page(paid):
    body = paid.get("/v1/categories").json()
    assert body["data"] == [] and body["meta"]["total"] == 0 and body["links"]["next"] is None


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("/v1/nutrients?page=0", "page"),
        ("/v1/nutrients?page=99", "page"),  # past the end
        ("/v1/nutrients?page_size=101", "page_size"),
        ("/v1/nutrients?page_size=ten", "page_size"),
        ("/v1/nutrients?page_size=5&page_size=6", "page_size"),
        ("/v1/nutrients?cursor=forged", "cursor"),
        ("/v1/nutrients?page=2&cursor=x", "cursor"),
        ("/v1/nutrients?market=US", "market"),  # one table for both markets
        ("/v1/nutrients?q=protein", "q"),
        ("/v1/categories?market=XX", "market"),
        ("/v1/categories?market=U5", "market"),
        ("/v1/categories?sort=name", "sort"),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(sr28_small, taster, paid, query, parameter):
    response = paid.get(query)
    assert response.status_code == 400, response.content
    problem = response.json()
    assert problem["type"] == "/problems/invalid-parameter"
    assert problem["errors"][0]["parameter"] == parameter
    assert problem["doc_url"].endswith("/docs#tag/invalid-parameter")
    assert "RateLimit-Remaining" in response  # counted like any read


def test_a_cursor_of_one_list_is_refused_by_another(sr28_small, paid):
    nutrients_next = paid.get("/v1/nutrients?page_size=2").json()["links"]["next"]
    cursor = nutrients_next.split("cursor=", 1)[1]
    response = paid.get(f"/v1/categories?cursor={cursor}")
    assert response.status_code == 400 and response.json()["errors"][0]["parameter"] == "cursor"
    market_cursor = paid.get("/v1/categories?market=US&page_size=2").json()["links"]["next"]
    changed = market_cursor.replace("market=US", "market=IN")
    assert paid.get(changed).status_code == 400  # a cursor belongs to its market's list
