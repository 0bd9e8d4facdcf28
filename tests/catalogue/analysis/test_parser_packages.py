"""A line counting packages of a stated size weighs count x size (issue 38.4), on the
weighing of catalogue/analysis/weighing.py: a mass size directly, a volume size through
the food's volume measure, whatever the food's own "can" measure."""

from __future__ import annotations

from catalogue.analysis.parser import parse_line
from catalogue.analysis.weighing import weigh

# SR28-shaped measures (factory data, not a food's real rows): a food with its own can.
TOMATOES = [
    {"description": "1 can", "gram_weight": 411.0},
    {"description": "1 cup", "gram_weight": 240.0},
]
COCONUT_MILK = [{"description": "1 cup", "gram_weight": 226.0}]


def test_a_mass_size_weighs_count_times_size():
    weighing = weigh(parse_line("2 28-ounce cans crushed tomatoes"), TOMATOES)
    assert weighing.grams == 1587.6
    assert weighing.portion == "2 cans of 28 oz = 1587.6 g"


def test_a_parenthesised_size_weighs_the_same():
    weighing = weigh(parse_line("1 (400 g) tin chopped tomatoes"), TOMATOES)
    assert (weighing.grams, weighing.portion) == (400, "1 tin of 400 g = 400 g")


def test_a_volume_size_goes_through_the_volume_measure():
    weighing = weigh(parse_line("1x 400 ml can coconut milk"), COCONUT_MILK)
    assert weighing.grams == round(400 * 226.0 / 236.5882365, 1)
    assert weighing.portion.startswith("1 can of 400 ml = ")
    assert weigh(parse_line("1x 400 ml can coconut milk"), []).reason


def test_a_can_without_a_size_uses_the_foods_can():
    weighing = weigh(parse_line("2 cans crushed tomatoes"), TOMATOES)
    assert (weighing.grams, weighing.portion) == (822, "1 can = 411 g")
