"""Which of the search's top foods a line means (catalogue/analysis/choosing.py)."""

from __future__ import annotations

import pytest

from catalogue.analysis.choosing import by_meaning, unasked


@pytest.mark.parametrize(
    ("name", "asked", "count"),
    [
        ("Egg, whole, raw, fresh", "eggs", 0),
        ("Egg, yolk, raw, fresh", "eggs", 1),
        ("Milk, whole, 3.25% milkfat, with added vitamin D", "whole milk", 0),
        ("Milk, buttermilk, fluid, whole", "whole milk", 1),
        ("Bread, white, commercially prepared, toasted", "white bread", 1),  # a state
        ("Rice, white, long-grain, regular, enriched, cooked", "rice cooked", 0),
        # a comma inside parentheses does not start a part: red, green; not european, type
        ("Grapes, red or green (European type, such as Thompson seedless), raw", "grapes", 2),
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
