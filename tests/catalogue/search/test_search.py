"""GET /v1/foods: relevance, filters, sorting (issue 3, point 3)."""

from __future__ import annotations

import pytest

from catalogue.search.text import words
from tests.factories import CategoryFactory, FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db


def names(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [food["name"] for food in response.json()["data"]]


def test_butter_ranks_butter_above_foods_that_merely_contain_it(sr28_small, taster):
    found = names(taster.get("/v1/foods", {"q": "butter"}))
    butters = [n for n in found if n.startswith("Butter,") or n.startswith("Butter oil")]
    containing = [n for n in found if "butter" in n.lower() and n not in butters]
    assert butters and containing
    assert found.index(butters[-1]) < found.index(containing[0])
    assert found[0] == "Butter, salted"  # the shortest "Butter, ..." name


def test_whole_word_matches_rank_above_longer_words_sharing_the_prefix(sr28_small, taster):
    found = names(taster.get("/v1/foods", {"q": "butter"}))
    assert found.index("Peanut butter, smooth, reduced fat") < found.index("Butterbur, (fuki), raw")


def test_two_word_query_needs_both_words_and_ranks_the_phrase_first(sr28_small, taster):
    found = names(taster.get("/v1/foods", {"q": "peanut butter"}))
    assert found and all("peanut" in n.lower() and "butter" in n.lower() for n in found)
    assert found[0].startswith("Peanut butter")


def test_plural_and_prefix_queries_match_stems(sr28_small, taster):
    assert "Apples, raw, with skin" in names(taster.get("/v1/foods", {"q": "apple"}))
    assert any(n.startswith("Chicken") for n in names(taster.get("/v1/foods", {"q": "chick"})))


def test_search_is_case_and_accent_insensitive(sr28_small, taster):
    assert names(taster.get("/v1/foods", {"q": "BÜTTER salted"}))[0] == "Butter, salted"


def test_filter_by_data_type(sr28_small, fdc_small, paid):
    found = paid.get("/v1/foods", {"q": "butter", "data_type": "branded,foundation"}).json()
    assert {f["data_type"] for f in found["data"]} == {"branded", "foundation"}


def test_filter_by_category(sr28_small, paid):
    response = paid.get("/v1/foods", {"q": "butter", "category": "legumes-and-legume-products"})
    assert names(response) and all(n.startswith("Peanut butter") for n in names(response))


def test_filter_by_brand_is_a_case_insensitive_prefix(sr28_small, paid):
    found = names(paid.get("/v1/foods", {"brand": "kraft"}))
    assert found and all(n.startswith("KRAFT") for n in found)


def test_filter_by_nutrient_range_per_100g(sr28_small, paid):
    response = paid.get("/v1/foods", {"protein_min": "20", "fat_max": "10"})
    foods = response.json()["data"]
    assert foods
    for food in foods:
        amounts = food["nutrients_per_100g"]
        assert amounts["protein_g"] >= 20 and amounts["fat_g"] <= 10


def test_range_excludes_foods_where_the_nutrient_was_not_measured(db, paid):
    FoodFactory(name="Measured", nutrients={"269": 5.0})
    FoodFactory(name="Unmeasured", nutrients={})
    assert names(paid.get("/v1/foods", {"sugars_max": "10"})) == ["Measured"]


def test_sort_by_name_both_ways(sr28_small, paid):
    up = names(paid.get("/v1/foods", {"q": "butter", "sort": "name"}))
    down = names(paid.get("/v1/foods", {"q": "butter", "sort": "-name"}))
    assert up == sorted(up, key=lambda name: words(name)) and down == list(reversed(up))


def test_sort_by_nutrient_descending_puts_unmeasured_last(db, paid):
    FoodFactory(name="Lean", nutrients={"203": 30.0})
    FoodFactory(name="Unknown", nutrients={})
    FoodFactory(name="Fatty", nutrients={"203": 2.0})
    assert names(paid.get("/v1/foods", {"sort": "-protein"})) == ["Lean", "Fatty", "Unknown"]
    assert names(paid.get("/v1/foods", {"sort": "protein"})) == ["Fatty", "Lean", "Unknown"]


def test_relevance_is_the_default_sort_with_q_and_name_without(sr28_small, paid):
    assert paid.get("/v1/foods", {"q": "butter"}).json()["meta"]["sort"] == "relevance"
    assert paid.get("/v1/foods").json()["meta"]["sort"] == "name"


@pytest.mark.parametrize(
    "q", ['"butter"', "butter & salted", "butter | oil", "!butter", "butter:*", "50%", "a\\b",
          "butter'); DROP TABLE catalogue_food; --", "(butter", "bútter", "黄油"],
)  # fmt: skip
def test_search_metacharacters_are_searched_as_text(sr28_small, taster, q):
    response = taster.get("/v1/foods", {"q": q})
    assert response.status_code == 200
    if words(q) == ["butter"]:
        assert "Butter, salted" in names(response)


@pytest.mark.parametrize("q", ["butter\x00", "\x00", "butter\x1b[0m"])
def test_control_characters_in_the_search_are_a_400(sr28_small, taster, q):
    """Issue 11.6: a parameter with a control character is refused on both backends."""
    response = taster.get("/v1/foods", {"q": q})
    assert response.status_code == 400
    assert response.json()["type"] == "/problems/invalid-parameter"
    assert response.json()["errors"] == [
        {"parameter": "q", "detail": "Control characters are not allowed."}
    ]


def test_query_without_letters_or_digits_is_refused_not_matched_literally(db, paid):
    # Issue 36.1: a literal match scanned every row; tests/catalogue/search/test_cost_bound.py.
    FoodFactory(name="Milk, 2% fat")
    assert paid.get("/v1/foods", {"q": "%"}).status_code == 400
    assert names(paid.get("/v1/foods", {"q": "2% milk"})) == ["Milk, 2% fat"]


def test_summary_shows_null_for_unmeasured_nutrients(db, paid):
    category = CategoryFactory(name="Sweets")
    FoodFactory(name="Candy", category=category, nutrients={"208": 400.0}, market=MarketFactory())
    food = paid.get("/v1/foods", {"q": "candy"}).json()["data"][0]
    assert food["nutrients_per_100g"]["energy_kcal"] == 400.0
    assert food["nutrients_per_100g"]["protein_g"] is None
    assert food["category"] == {"id": "sweets", "name": "Sweets"}
    assert food["links"]["self"] == f"/v1/foods/{food['id']}"
