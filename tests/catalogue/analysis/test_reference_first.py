"""A line naming no brand means the reference food (issue 38.4), even where no reference
name holds every word of the line or the reference food first in meaning has no measure:
catalogue/analysis/choosing.py's rules on real USDA names, and
catalogue.analysis.selectors on factory foods of real names, on both backends."""

from __future__ import annotations

import pytest

from catalogue.analysis import selectors
from catalogue.analysis.choosing import QUALIFIED, by_meaning, distance, narrowed, unasked
from catalogue.analysis.selectors import analysis_run
from catalogue.models import DataType
from tests.factories import FoodFactory, MarketFactory

SR = "sr_legacy"


@pytest.mark.parametrize(
    ("words", "about", "tried"),
    [
        # a describing word is left out, never the word the food is named by
        ("cherry tomatoes", {"cherry": 14, "tomatoes": 40}, ["tomatoes"]),
        ("salmon fillet", {"salmon": 54}, ["salmon"]),
        ("black coffee", {"coffee": 53}, ["coffee"]),
        ("ground cumin", {}, ["cumin"]),  # no word is about a food: still a describing one
        # ripeness describes the fruit: SR28 names "Mangos, raw", IFCT "Mango, ripe, ..."
        ("ripe mango", {"ripe": 9, "mango": 12}, ["mango"]),
        # no describing word: nothing is tried ("apple cider vinegar" is not a drink)
        ("chocolate chips", {"chocolate": 3, "chips": 1}, []),
        ("apple cider vinegar", {"apple": 34, "vinegar": 5}, []),
        # one word, or more than four: nothing
        ("cumin", {}, []),
        ("very long black ground spice name", {}, []),
    ],
)
def test_a_line_no_reference_name_holds_is_searched_without_a_describing_word(words, about, tried):
    assert narrowed(words, lambda terms: about) == tried


@pytest.mark.parametrize(
    ("asked", "names", "first"),
    [
        # USDA's class word names no other food ("Pork, cured, bacon" is bacon)
        ("bacon slice", ["Canadian bacon, unprepared", "Pork, cured, bacon, unprepared"], 1),
        ("shrimp", ["Shrimp, mixed species, breaded", "Crustaceans, shrimp, raw"], 1),
        # a claim after the name's food is another version than the plain line means
        ("bacon slice", ["Bacon, pre-sliced, reduced/low sodium, unprepared",
                         "Pork, cured, bacon, unprepared"], 1),
        ("2 milk", ["Milk, evaporated, reduced fat (2%)",
                    "Milk, reduced fat, fluid, 2% milkfat, with added vitamin A and vitamin D"], 1),
        # a blend or a baby food is another food
        ("apple juice", ["Juice, apple, grape and pear blend, with added ascorbic acid",
                         "Apple juice, canned or bottled, unsweetened"], 1),
        ("apple juice", ["Babyfood, juice, apple",
                         "Apple juice, canned or bottled, unsweetened"], 1),
        # the animal a plain meat word means, even as USDA's category ("Beef, bacon")
        ("bacon", ["Beef, bacon, cooked", "Pork, cured, bacon, cooked, pan-fried"], 1),
        ("steak", ["Pork, fresh, loin, blade (chops or roasts), steak", "Beef, steak, NFS"], 1),
        ("beef bacon", ["Pork, cured, bacon, cooked, pan-fried", "Beef, bacon, cooked"], 1),
        # a part no plain line means
        ("bacon", ["Pork, bacon, rendered fat, cooked",
                   "Pork, cured, bacon, cooked, pan-fried"], 1),
        ("turkey", ["Turkey, whole, giblets, cooked, simmered",
                    "Turkey, whole, meat only, cooked"], 1),
        # the state words after a name's food state one state: "cooked, pan-fried" is one
        ("bacon", ["Canadian bacon, cooked", "Pork, cured, bacon, cooked, pan-fried"], 1),
        # IFCT 2017's usual grain and egg (market IN): milled rice, a hen's egg
        ("rice", ["Rice, raw, brown", "Rice, raw, milled"], 1),
        ("eggs", ["Egg, quial, whole, raw", "Egg, poultry, whole, raw"], 1),
        # a form it is bought in, stated after the food, is not the drink a line means
        ("black coffee", ["Beverages, coffee, instant, regular, powder",
                          "Beverages, coffee, brewed, prepared with tap water"], 1),
    ],
)  # fmt: skip
def test_the_plain_reference_food_comes_first(asked, names, first):
    assert by_meaning([(name, SR) for name in names], asked)[0] == first


def test_a_class_word_is_not_counted_but_a_food_word_is():
    assert unasked("Spices, cumin seed", "cumin") == 1  # "seed"
    assert unasked("Nuts, almonds", "almonds") == 0
    assert unasked("Puddings, banana, dry mix", "banana") >= 1  # a pudding: not a class
    assert unasked("Peaches, frozen, sliced, sweetened", "frozen peas") == 1  # peaches


def test_a_claim_or_form_the_line_asks_for_is_not_held_against_the_name():
    low = "Bacon, pre-sliced, reduced/low sodium, unprepared"
    assert distance(low, "bacon slice") >= QUALIFIED
    assert distance(low, "low sodium bacon slice") < QUALIFIED
    powder = "Beverages, coffee, instant, regular, powder"
    assert distance(powder, "coffee") == 1  # "instant, powder": one form
    assert distance(powder, "instant coffee") == 0


@pytest.mark.django_db
def test_a_describing_word_no_reference_name_holds_does_not_hand_the_line_to_a_product():
    FoodFactory(name="CUMIN GROUND", data_type=DataType.BRANDED,
                portions=[{"description": "0.25 tsp", "gram_weight": 0.5}])  # fmt: skip
    FoodFactory(name="GROUND CUMIN", data_type=DataType.BRANDED,
                portions=[{"description": "0.25 tsp", "gram_weight": 0.5}])  # fmt: skip
    FoodFactory(
        name="Spices, cumin seed", portions=[{"description": "1 tsp, whole", "gram_weight": 2.1}]
    )
    line = analysis_run(lines=["1 tsp ground cumin"], market="US").lines[0]
    assert line["food"]["name"] == "Spices, cumin seed"
    assert line["grams"] == 2.1


@pytest.mark.django_db
def test_an_sr28_food_with_a_measure_is_matched_before_a_products_label_serving(monkeypatch):
    # Only three candidates are read, so the SR28 food is not among them (on the full
    # catalogue: 50 branded "TOMATO PASTE" titles outrank it).
    monkeypatch.setattr(selectors, "CANDIDATES", 3)
    for _ in range(3):
        FoodFactory(name="TOMATO PASTE", data_type=DataType.BRANDED,
                    portions=[{"description": "1-1/2 Tbsp", "gram_weight": 27.0}])  # fmt: skip
    FoodFactory(name="Tomato, paste, canned, without salt added", data_type=DataType.FOUNDATION)
    FoodFactory(name="Tomato products, canned, paste, without salt added",
                portions=[{"description": "1 tbsp", "gram_weight": 16.0}])  # fmt: skip
    line = analysis_run(lines=["2 tbsp tomato paste"], market="US").lines[0]
    assert line["food"]["name"] == "Tomato products, canned, paste, without salt added"
    assert line["grams"] == 32.0


@pytest.mark.django_db
def test_the_sr28_food_is_matched_only_in_its_own_market():
    india = MarketFactory(code="IN", name="India")
    FoodFactory(name="Coriander seeds", market=india, source="ifct", data_type=DataType.IFCT)
    FoodFactory(name="Spices, coriander seed",
                portions=[{"description": "1 tsp", "gram_weight": 1.8}])  # fmt: skip
    indian = analysis_run(lines=["1 tsp coriander seeds"], market="IN").lines[0]
    assert indian["food"] is None or indian["food"]["name"] == "Coriander seeds"
    american = analysis_run(lines=["1 tsp coriander seeds"], market="US").lines[0]
    assert american["food"]["name"] == "Spices, coriander seed"
