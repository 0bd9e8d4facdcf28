"""``POST /v1/analysis?market=CC`` for paid tiers (issue 38.5) and ``servings`` (38.6), on
real SR28 rows (tests/catalogue/data/sr28) and one food of market IN, on both backends."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import Account
from catalogue.analysis.api import MAX_SERVINGS, per_serving
from catalogue.analysis.parser import parse_line
from catalogue.analysis.selectors import NUTRIENT_KEYS, line_result
from keys.services import key_create
from tests.factories import AccountFactory, FoodFactory, MarketFactory

URL = "/v1/analysis"
GHEE = [{"description": "1 tbsp", "gram_weight": 12.8}]


@pytest.fixture
def india(sr28_small) -> None:
    """The US SR28 sample and one food of market IN that also answers "butter"."""
    market = MarketFactory(code="IN", name="India")
    FoodFactory(name="Butter, white (IN)", market=market, nutrients={"208": 700.0}, portions=GHEE)


def _analysed(client: APIClient, body: object, query: str = "") -> dict:
    response = client.post(URL + query, body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_paid_tier_names_the_market_its_lines_are_matched_in(india, paid):
    body = {"ingredients": ["1 tbsp butter"]}
    indian = _analysed(paid, body, "?market=IN")
    assert indian["meta"]["market"] == "IN"
    assert indian["data"]["ingredients"][0]["food"]["name"] == "Butter, white (IN)"
    assert indian["data"]["ingredients"][0]["grams"] == 12.8
    american = _analysed(paid, body, "?market=us")  # the code in either case, as on /v1/foods
    assert american["meta"]["market"] == "US"
    assert american["data"]["ingredients"][0]["food"]["id"].startswith("sr28-")
    everywhere = _analysed(paid, body)
    assert everywhere["meta"]["market"] is None


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?market=XX", "market"),  # not a market of the catalogue
        ("?market=USA", "market"),
        ("?market=US&market=IN", "market"),
        ("?page=2", "page"),  # the analysis takes no other parameter
    ],
)
def test_a_bad_query_is_an_invalid_parameter_naming_it(india, paid, query, field):
    response = paid.post(URL + query, {"ingredients": ["1 tbsp butter"]}, format="json")
    assert response.status_code == 400
    problem = response.json()
    assert problem["type"] == "/problems/invalid-parameter"
    assert problem["errors"] == [{"parameter": field, "detail": problem["errors"][0]["detail"]}]


def test_a_taster_reads_its_own_market_and_may_not_name_another(india):
    account: Account = AccountFactory(market="IN")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_create(account=account, label="in")[1])
    own = _analysed(client, {"ingredients": ["1 tbsp butter"]}, "?market=IN")
    assert own["meta"]["market"] == "IN"
    response = client.post(URL + "?market=US", {"ingredients": ["1 tbsp butter"]}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["parameter"] == "market"


def test_servings_divide_the_totals(sr28_small, unthrottled):
    body = {"ingredients": ["4 tbsp butter", "2 cups whole milk"], "servings": 4}
    answer = _analysed(unthrottled, body)
    totals, each = answer["data"]["totals"], answer["data"]["per_serving"]
    assert set(each) == set(NUTRIENT_KEYS)
    assert totals["energy_kcal"] > 0
    for key, total in totals.items():
        assert each[key] == (None if total is None else round(total / 4, 2))
    assert answer["meta"]["servings"] == 4


def test_without_servings_there_is_no_per_serving(sr28_small, unthrottled):
    answer = _analysed(unthrottled, {"ingredients": ["1 tbsp butter"]})
    assert "per_serving" not in answer["data"] and answer["meta"]["servings"] is None


@pytest.mark.parametrize("servings", [0, -1, 1.5, "4", True, None, MAX_SERVINGS + 1, 10**30])
def test_servings_that_are_not_a_whole_number_in_range_are_refused(
    sr28_small, unthrottled, servings
):
    body = {"ingredients": ["1 tbsp butter"], "servings": servings}
    response = unthrottled.post(URL, body, format="json")
    assert response.status_code == 400
    problem = response.json()
    assert problem["type"] == "/problems/invalid-ingredients"
    assert [e["field"] for e in problem["errors"]] == ["servings"]


def test_a_bad_serving_and_a_bad_line_are_named_together(sr28_small, unthrottled):
    body = {"ingredients": ["1 egg", 5], "servings": 0}
    problem = unthrottled.post(URL, body, format="json").json()
    assert {e["field"] for e in problem["errors"]} == {"ingredients[1]", "servings"}


def test_per_serving_keeps_nulls_and_rounds():
    assert per_serving({"energy_kcal": 100.0, "fiber_g": None}, 3) == {
        "energy_kcal": 33.33,
        "fiber_g": None,
    }


def test_a_line_whose_amount_cannot_be_read_says_so_instead_of_guessing(sr28_small, unthrottled):
    # Issue 38.3: a number the parser cannot place is never read as some other amount.
    answer = _analysed(unthrottled, {"ingredients": ["butter 2 3 x", "2 tbsp butter"]})
    unreadable, readable = answer["data"]["ingredients"]
    assert unreadable["status"] == "unmatched" and unreadable["grams"] is None
    assert unreadable["reason"].startswith("The amount could not be read")
    assert readable["status"] == "matched" and answer["meta"]["matched"] == 1


def _record(pk: int, data_type: str, energy: float | None) -> dict:
    """A candidate row as the analysis reads it: one food's record from one source."""
    row = dict.fromkeys(NUTRIENT_KEYS, 1.0) | {"energy_kcal": energy}
    return row | {
        "id": pk,
        "public_id": f"t-{pk}",
        "name": "Blackberries, raw",
        "data_type": data_type,
        "portions": [{"description": "1 cup", "gram_weight": 144.0}],
        "search_aliases": [],
    }


def test_of_one_foods_records_the_one_reporting_energy_is_matched():
    # Issue 38.4: FDC's Foundation record of "Blackberries, raw" reports no energy; the
    # SR28 record of the same name does. Whatever order the search gave them in, the line
    # is weighed and counted with the one whose energy is known.
    without, with_energy = _record(1, "foundation", None), _record(2, "sr_legacy", 43.0)
    result = line_result(
        "1 cup blackberries", parse_line("1 cup blackberries"), [without, with_energy]
    )
    assert result["food"]["id"] == "t-2" and result["nutrients"]["energy_kcal"] == 61.92


def test_a_branded_record_reporting_more_is_not_taken_for_the_reference_one():
    # FNDDS "Olive oil" missing a headline nutrient stays before a branded "OLIVE OIL"
    # reporting them all: complete_first orders equals only (same name, same tier).
    survey = _record(1, "survey", None) | {"name": "Olive oil"}
    branded = _record(2, "branded", 884.0) | {"name": "OLIVE OIL"}
    result = line_result("1 cup olive oil", parse_line("1 cup olive oil"), [survey, branded])
    assert result["food"]["id"] == "t-1"
