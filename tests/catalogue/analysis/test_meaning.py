"""The ingredient a line means (issue 38.4): catalogue/analysis/choosing.py's rules on real
USDA names (SR28, FNDDS, Foundation), and the analysis's search correcting only unknown
words into reference foods' words (catalogue.search.selectors.food_top_ids)."""

from __future__ import annotations

import pytest

from catalogue.analysis.choosing import (
    by_meaning,
    complete_first,
    distance,
    placed,
    qualified,
    unasked,
)
from catalogue.models import DataType
from catalogue.search.selectors import food_top_ids
from tests.factories import FoodFactory

SR, FNDDS, FOUNDATION = "sr_legacy", "survey", "foundation"


@pytest.mark.parametrize(
    ("asked", "names", "first"),
    [
        # a plain meat name: the version no unasked animal qualifies
        ("bacon slice", ["Bacon, turkey, unprepared", "Turkey bacon, unprepared",
                         "Bacon, meatless", "Pork, cured, bacon, unprepared"], 3),
        ("sausage", ["Sausage, turkey, fresh, raw", "Turkey sausage, fresh, raw",
                     "Sausage, NFS"], 2),
        ("eggs", ["Egg, duck, whole, fresh, raw", "Egg, whole, raw, fresh"], 1),
        # unless the line names it
        ("turkey bacon slice", ["Pork, cured, bacon, unprepared", "Bacon, turkey, unprepared"], 1),
        # a line's words only in what a food is made with: another food
        ("2 milk", ["Puddings, banana, dry mix, instant, prepared with 2% milk",
                    "Milk, reduced fat, fluid, 2% milkfat, with added vitamin A and vitamin D"], 1),
        ("bacon", ["Egg burrito, with bacon", "Pork, cured, bacon, unprepared"], 1),
        # a size word weighs the grown-up food, not a baby or mini form
        ("zucchini", ["Squash, zucchini, baby, raw",
                      "Squash, summer, zucchini, includes skin, raw"], 1),
        ("carrots", ["Carrots, baby, raw", "Carrots, raw"], 1),
        # the line's word where the name names its food, before one holding it further on
        ("steak", ["Pork, fresh, shoulder, (Boston butt), blade (steaks), separable lean only, raw",
                   "Beef, steak, NFS"], 1),
    ],
)  # fmt: skip
def test_the_plain_usual_food_comes_first(asked, names, first):
    foods = [(name, SR) for name in names]
    assert by_meaning(foods, asked)[0] == first


@pytest.mark.parametrize(
    ("name", "asked", "is_qualified"),
    [
        ("Bacon, turkey, low sodium", "bacon", True),
        ("Turkey bacon, unprepared", "bacon", True),
        ("Bacon, turkey, low sodium", "turkey bacon", False),
        ("Pork, cured, bacon, unprepared", "bacon", False),  # the animal is the category
        ("Beef, flank, steak, separable lean only, raw", "steak", False),
        ("Sausage, Italian, turkey, smoked", "italian sausage", True),
        # the usual animal of the meat word never qualifies it, wherever it stands
        ("Sausage, Italian, pork, raw", "italian sausage", False),
        ("Beef, bacon, cooked", "bacon", True),
        ("Egg, duck, whole, fresh, raw", "egg", True),
        ("Chicken, broilers or fryers, breast, meat only, raw", "chicken breast", False),
        ("Soup, chicken broth, canned", "chicken broth", False),
    ],
)
def test_an_unasked_animal_qualifying_a_food_is_another_version(name, asked, is_qualified):
    assert qualified(name, asked) is is_qualified


def test_a_made_with_word_counts_as_a_word_the_name_adds():
    pudding = "Puddings, banana, dry mix, instant, prepared with 2% milk"
    assert distance(pudding, "2 milk") == unasked(pudding, "2 milk") + 2
    assert distance("Milk, whole, 3.25% milkfat, with added vitamin D", "whole milk") == 0


def test_state_words_and_absent_words_do_not_count_as_placed_further_on():
    assert placed("Peas, green, frozen, unprepared", "frozen peas") == 0
    assert placed("Cheese, cheddar", "cheddar cheese slice") == 0
    assert placed("Pork, fresh, shoulder, (Boston butt), blade (steaks)", "steak") == 1


def test_a_record_missing_a_headline_nutrient_comes_after_its_namesake():
    rows = [
        {"name": "Blackberries, raw", "data_type": FOUNDATION, "energy_kcal": None},
        {"name": "Blackberries, raw", "data_type": SR, "energy_kcal": 43.0},
        {"name": "Blackberries, frozen", "data_type": FNDDS, "energy_kcal": 64.0},
    ]
    assert complete_first(rows) == [1, 0, 2]
    assert complete_first(rows[::-1]) == [0, 1, 2]  # otherwise the order is kept


@pytest.mark.django_db
@pytest.mark.parametrize("market", [None, "US"])
def test_the_analysis_search_does_not_spell_a_vegetable_into_a_product(market):
    FoodFactory(name="TATOR TOT ROUNDS", data_type=DataType.BRANDED)
    FoodFactory(name="Butter, salted", data_type=DataType.SR_LEGACY)
    FoodFactory(name="BUTTER COOKIES", data_type=DataType.BRANDED)
    # "tatsoi" is in no name: corrected as GET /v1/foods would ("tator"), but not
    # into a word only a branded title holds
    assert food_top_ids(q="tatsoi", market=market, limit=5, known_words=False)
    assert food_top_ids(q="tatsoi", market=market, limit=5) == []
    # a misspelling of a word reference foods hold is still corrected
    assert food_top_ids(q="buttre", market=market, limit=5)
