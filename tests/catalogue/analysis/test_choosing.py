"""Which of the search's top foods a line means (catalogue/analysis/choosing.py)."""

from __future__ import annotations

import pytest

from catalogue.analysis.choosing import by_meaning, same_kind, unasked


@pytest.mark.parametrize(
    ("name", "asked", "count"),
    [
        ("Egg, whole, raw, fresh", "eggs", 0),
        ("Egg, yolk, raw, fresh", "eggs", 1),
        ("Milk, whole, 3.25% milkfat, with added vitamin D", "whole milk", 0),
        ("Milk, buttermilk, fluid, whole", "whole milk", 1),
        ("Bread, white, commercially prepared, toasted", "white bread", 1),  # a state
        ("Rice, white, long-grain, regular, enriched, cooked", "rice cooked", 0),
        # a comma inside parentheses does not start a part; "red or green" is one choice
        ("Grapes, red or green (European type, such as Thompson seedless), raw", "grapes", 1),
        ("Grapes, american type (slip skin), raw", "grapes", 2),
        # a form word counts anywhere in the name, unless asked
        ("Squash, zucchini, baby, raw", "zucchini", 2),
        ("Spinach, baby", "baby spinach", 0),
        ("Bread, whole-wheat, prepared from recipe", "whole wheat bread slice", 1),
        # eaten with its peel unless the line says peeled
        ("Cucumber, with peel, raw", "cucumber", 0),
        ("Cucumber, peeled, raw", "cucumber", 1),
        ("Ham, sliced, regular", "ham slice", 0),  # the count word asks for it
    ],
)
def test_unasked_words_of_a_name(name, asked, count):
    assert unasked(name, asked) == count


def test_reference_foods_come_before_branded_ones_then_by_meaning():
    foods = [
        ("BAKING SODA", "branded"),
        ("Egg, yolk, raw, fresh", "sr_legacy"),
        ("Egg, whole, raw, fresh", "sr_legacy"),
        ("EGGS", "branded"),
    ]
    assert by_meaning(foods, "egg") == [2, 1, 3, 0]


def test_a_powder_counts_against_a_line_that_cuts_the_food():
    # "Spices" is USDA's class, never counted (CLASSES); "ground" counts only when cut
    assert unasked("Spices, ginger, ground", "ginger", cut=True) == 1
    assert unasked("Ginger root, raw", "ginger", cut=True) == 1
    assert unasked("Spices, ginger, ground", "ginger") == 0  # "1 tsp ginger": the spice


def test_lab_sample_records_come_after_branded_ones():
    foods = [
        ("Kiwi, Region 1, n/a, Yes, Fiber  - NFY0100RH", "sub_sample"),
        ("KIWI", "branded"),
        ("Kiwifruit, green, raw", "sr_legacy"),
        ("Kiwi, sample 3", "agricultural_acquisition"),
    ]
    assert by_meaning(foods, "kiwi") == [2, 1, 0, 3]


def test_among_equals_the_name_stating_the_usual_form_comes_first():
    foods = [
        ("Avocados, raw, Florida", "sr_legacy"),
        ("Avocados, raw, all commercial varieties", "sr_legacy"),
        ("Tomatoes, green, raw", "sr_legacy"),
        ("Tomatoes, red, ripe, raw, year round average", "sr_legacy"),
    ]
    assert by_meaning(foods[:2], "avocado") == [1, 0]
    assert by_meaning(foods[2:], "tomatoes") == [1, 0]
    # FNDDS's "NS as to ..." is the survey's default when the diary did not say
    steak = [
        ("Beef, steak, sirloin, lean only eaten", "survey"),
        ("Beef, steak, sirloin, NS as to fat eaten", "survey"),
    ]
    assert by_meaning(steak, "sirloin steak") == [1, 0]


@pytest.mark.parametrize(
    ("name", "other", "same"),
    [
        ("Kiwi fruit, raw", "Kiwifruit, green, raw", True),
        ("Peach, raw", "Peaches, yellow, raw", True),
        ("Grapes, raw", "Grape leaves, raw", False),
        ("Grapes, raw", "Grapes, canned, thompson seedless, water pack", False),
        ("Mustard", "Mustard greens, raw", False),
        ("Mustard", "Mustard, prepared, yellow", True),
    ],
)
def test_same_kind_is_the_same_first_part_and_state(name, other, same):
    assert same_kind(name, other) is same
