"""Paging, links, and the Taster structural limits with their paid-tier lifts
(issue 3, points 3 and 5; spec 8.2)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from catalogue.models import Food
from catalogue.search.text import search_name
from tests.factories import FoodFactory, MarketFactory
from tests.support.shared_rows import shared_rows

pytestmark = pytest.mark.django_db


def cursor_of(link: str) -> str:
    return parse_qs(urlsplit(link).query)["cursor"][0]


def test_taster_list_without_q_is_enumeration_forbidden(sr28_small, taster):
    for params in ({}, {"data_type": "sr_legacy"}, {"sort": "name"}, {"page": "2"}, {"q": "  "}):
        response = taster.get("/v1/foods", params)
        assert response.status_code == 403
        assert response.json()["type"] == "/problems/enumeration-forbidden"


def test_taster_reads_records_by_id_without_q(sr28_small, taster):
    assert taster.get("/v1/foods/sr28-01001").status_code == 200


def test_paid_tier_may_list_without_q(sr28_small, paid):
    response = paid.get("/v1/foods", {"data_type": "sr_legacy"})
    assert response.status_code == 200 and response.json()["meta"]["total"] == 20


def test_taster_without_market_gets_market_not_selected(sr28_small, taster_no_market):
    for path in ("/v1/foods?q=butter", "/v1/foods", "/v1/foods/sr28-01001"):
        response = taster_no_market.get(path)
        assert response.status_code == 403
        assert response.json()["type"] == "/problems/market-not-selected"


def test_market_choice_scopes_taster_results(db, taster_no_market):
    FoodFactory(name="Butter, US", market=MarketFactory(code="US"))
    FoodFactory(name="Butter, CA", market=MarketFactory(code="CA", name="Canada"))
    assert taster_no_market.put("/v1/market", {"market": "CA"}, format="json").status_code == 200
    found = taster_no_market.get("/v1/foods", {"q": "butter"}).json()["data"]
    assert [f["name"] for f in found] == ["Butter, CA"]
    us_food = Food.objects.get(name="Butter, US").public_id
    assert taster_no_market.get(f"/v1/foods/{us_food}").status_code == 404


def test_taster_may_not_ask_for_another_market(db, taster):
    response = taster.get("/v1/foods", {"q": "butter", "market": "CA"})
    assert response.status_code == 400 and response.json()["errors"][0]["parameter"] == "market"


def test_paid_tier_sees_all_markets_with_an_optional_filter(db, paid):
    FoodFactory(name="Butter, US", market=MarketFactory(code="US"))
    FoodFactory(name="Butter, CA", market=MarketFactory(code="CA", name="Canada"))
    everything = paid.get("/v1/foods", {"q": "butter"}).json()["data"]
    assert {f["market"] for f in everything} == {"US", "CA"}
    only_ca = paid.get("/v1/foods", {"q": "butter", "market": "ca"}).json()["data"]
    assert [f["market"] for f in only_ca] == ["CA"]


@pytest.fixture(scope="class")
def many_apples(django_db_setup: None, django_db_blocker) -> Iterator[int]:
    """1,050 foods matching "apple" (more than the Taster depth cap), in market US: made
    once for the class, which only reads them (tests/support/shared_rows.py)."""
    yield from shared_rows(django_db_blocker, _many_apples)


def _many_apples() -> int:
    market = MarketFactory()
    foods = [
        Food(
            public_id=f"sr28-{n:05d}", source="sr28", source_id=f"{n:05d}",
            name=f"Apple variety {n:04d}", search_name=search_name(f"Apple variety {n:04d}"),
            data_type="sr_legacy", market=market, content_hash="x",
        )
        for n in range(1050)
    ]  # fmt: skip
    Food.objects.bulk_create(foods, batch_size=500)
    return len(foods)


class TestOnManyApples:
    """Paging over more matches than the Taster depth cap: every test here reads the
    class's 1,050 foods and writes none (its keys and requests are its own)."""

    def test_links_next_is_followed_as_is_until_null_on_the_last_page(self, many_apples, paid):
        seen, url, pages = [], "/v1/foods?q=apple&page_size=100", 0
        while url:
            body = paid.get(url).json()
            seen += [food["id"] for food in body["data"]]
            url, pages = body["links"]["next"], pages + 1
        assert pages == 11 and len(seen) == len(set(seen)) == 1050

    def test_links_self_and_prev(self, many_apples, paid):
        first = paid.get("/v1/foods?q=apple&page_size=10").json()
        assert first["links"]["self"] == "/v1/foods?q=apple&page_size=10"
        assert first["links"]["prev"] is None
        third = paid.get("/v1/foods?q=apple&page_size=10&page=3").json()
        assert third["links"]["prev"] == "/v1/foods?q=apple&page_size=10&page=2"
        second = paid.get(third["links"]["prev"]).json()
        assert second["data"][0]["id"] == first["data"][-1]["id"].replace("00009", "00010")
        assert third["meta"]["offset"] == 20

    def test_search_total_counts_up_to_1000_then_says_it_is_not_exact(self, many_apples, paid):
        meta = paid.get("/v1/foods", {"q": "apple", "page_size": "10", "page": "3"}).json()["meta"]
        assert meta["total"] == 1000 and meta["total_exact"] is False
        last = paid.get("/v1/foods", {"q": "apple", "page_size": "100", "page": "11"}).json()
        assert last["meta"]["total"] == 1000 and last["meta"]["total_exact"] is False

    def test_search_total_below_the_cap_is_exact(self, many_apples, paid):
        meta = paid.get("/v1/foods", {"q": "variety 000"}).json()["meta"]
        assert meta["total"] == 10 and meta["total_exact"] is True

    def test_page_numbers_and_cursors_agree(self, many_apples, paid):
        first = paid.get("/v1/foods?q=apple&page_size=7").json()
        by_cursor = paid.get(first["links"]["next"]).json()
        by_number = paid.get("/v1/foods?q=apple&page_size=7&page=2").json()
        assert by_cursor["data"] == by_number["data"]

    def test_the_same_page_has_the_same_bytes_and_etag_whenever_asked(
        self, many_apples, paid, clock
    ):
        """Issue 14.2: no timestamp in the cursor, so caches can revalidate every page."""
        first = paid.get("/v1/foods?q=apple&page_size=5")
        second = paid.get(first.json()["links"]["next"])
        clock.shift(3 * 3600 + 7)
        again = paid.get("/v1/foods?q=apple&page_size=5")
        assert again.content == first.content and again["ETag"] == first["ETag"]
        second_again = paid.get(again.json()["links"]["next"])
        assert second_again.content == second.content and second_again["ETag"] == second["ETag"]
        assert second.json()["links"]["next"] == second_again.json()["links"]["next"]

    def test_a_cursor_alone_reads_the_same_page_as_links_next(self, many_apples, paid):
        """Issue 14.3: the cursor carries its search; its links carry the search too."""
        first = paid.get("/v1/foods?q=apple&sort=-name&page_size=5").json()
        followed = paid.get(first["links"]["next"]).json()
        alone = paid.get("/v1/foods", {"cursor": cursor_of(first["links"]["next"])}).json()
        assert alone["data"] == followed["data"] and alone["meta"] == followed["meta"]
        assert alone["data"][0]["name"] == "Apple variety 1044"
        assert alone["links"]["next"] == followed["links"]["next"]
        assert alone["links"]["prev"] == followed["links"]["prev"]
        third = paid.get("/v1/foods", {"cursor": cursor_of(alone["links"]["next"])}).json()
        assert third["meta"]["offset"] == 10 and third["data"][0]["name"] == "Apple variety 1039"

    def test_parameters_given_with_a_cursor_must_agree_with_its_search(self, many_apples, paid):
        token = cursor_of(paid.get("/v1/foods?q=apple&page_size=5").json()["links"]["next"])
        agreeing = paid.get("/v1/foods", {"cursor": token, "page_size": "5", "sort": "relevance"})
        assert agreeing.status_code == 200 and agreeing.json()["meta"]["offset"] == 5
        for other in ({"page_size": "6"}, {"sort": "name"}, {"q": "variety"}, {"brand": "x"}):
            response = paid.get("/v1/foods", {"cursor": token, **other})
            assert response.status_code == 400, other
            assert response.json()["errors"][0]["parameter"] == "cursor"

    def test_a_taster_cursor_alone_keeps_the_depth_cap(self, many_apples, taster):
        url, seen = "/v1/foods?q=apple&page_size=100", 0
        while url:
            body = taster.get(url).json()
            seen += len(body["data"])
            url = body["links"]["next"] and f"/v1/foods?cursor={cursor_of(body['links']['next'])}"
        assert seen == 1000

    def test_taster_page_just_before_the_depth_cap_works(self, many_apples, taster):
        response = taster.get("/v1/foods", {"q": "apple", "page_size": "100", "page": "10"})
        body = response.json()
        assert response.status_code == 200 and len(body["data"]) == 100
        assert body["links"]["next"] is None and body["meta"]["depth_limit"] == 1000

    def test_taster_page_past_the_depth_cap_is_result_depth_exceeded(self, many_apples, taster):
        response = taster.get("/v1/foods", {"q": "apple", "page_size": "100", "page": "11"})
        assert response.status_code == 403
        assert response.json()["type"] == "/problems/result-depth-exceeded"

    def test_taster_page_straddling_the_cap_is_cut_at_it(self, many_apples, taster):
        body = taster.get("/v1/foods", {"q": "apple", "page_size": "30", "page": "34"}).json()
        assert body["meta"]["offset"] == 990 and len(body["data"]) == 10
        assert body["links"]["next"] is None

    def test_taster_following_next_stops_at_the_cap(self, many_apples, taster):
        url, seen = "/v1/foods?q=apple&page_size=100", 0
        while url:
            body = taster.get(url).json()
            seen += len(body["data"])
            url = body["links"]["next"]
        assert seen == 1000

    def test_paid_tier_pages_past_the_taster_cap(self, many_apples, paid):
        response = paid.get("/v1/foods", {"q": "apple", "page_size": "100", "page": "11"})
        assert response.status_code == 200 and len(response.json()["data"]) == 50
        assert response.json()["meta"]["depth_limit"] is None

    def test_forged_cursor_cannot_skip_the_cap(self, many_apples, taster):
        body = taster.get("/v1/foods", {"q": "apple", "page_size": "100"}).json()
        token = body["links"]["next"].split("cursor=")[1]
        response = taster.get(
            "/v1/foods", {"q": "apple", "page_size": "100", "cursor": token + "x"}
        )
        assert response.status_code == 400 and response.json()["errors"][0]["parameter"] == "cursor"

    def test_cursor_from_another_search_is_refused(self, many_apples, paid):
        token = (
            paid.get("/v1/foods?q=apple&page_size=5").json()["links"]["next"].split("cursor=")[1]
        )
        response = paid.get("/v1/foods", {"q": "variety", "page_size": "5", "cursor": token})
        assert response.status_code == 400 and response.json()["errors"][0]["parameter"] == "cursor"
