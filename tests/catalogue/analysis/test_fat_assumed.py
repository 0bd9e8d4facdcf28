"""A plate's food without the fat a survey recipe assumed (issue 38): a logged line's FNDDS
record whose fat clearly exceeds that of its reference kin cooked without fat among the
candidates comes after them (catalogue.analysis.eaten.lean_first); a record within its
kin's range keeps its place, and a recipe's line is read as before. Factory foods with
their SR28 / FNDDS names and values; on both backends."""

from __future__ import annotations

import pytest

from catalogue.analysis import eaten
from catalogue.analysis.selectors import analysis_run
from tests.factories import FoodFactory, MarketFactory

SR, SURVEY = "sr_legacy", "survey"
# Per 100 g: energy, protein, fat, carbohydrate (NDB 208, 203, 204, 205).
FOODS = [
    # FNDDS's plain barley and boiled potato are cooked with fat their names do not state
    ("Barley", SURVEY, (139, 2.2, 2.74, 27.23)),
    ("Barley, pearled, cooked", SR, (123, 2.26, 0.44, 28.22)),
    ("Barley, pearled, raw", SR, (352, 9.91, 1.16, 77.72)),
    ("Potato, boiled, NFS", SURVEY, (126, 1.87, 4.25, 20.45)),
    ("Potatoes, boiled, cooked in skin, skin, without salt", SR, (78, 2.86, 0.1, 17.21)),
    ("Potatoes, boiled, cooked in skin, flesh, without salt", SR, (87, 1.87, 0.1, 20.13)),
    # FNDDS's steamed salmon lies within SR28's cooked salmons: species, not added fat
    ("Fish, salmon, steamed", SURVEY, (231, 21.5, 14.1, 0.0)),
    ("Fish, salmon, pink, cooked, dry heat", SR, (153, 24.58, 5.28, 0.0)),
    ("Fish, salmon, chinook, cooked, dry heat", SR, (231, 25.72, 13.38, 0.0)),
]


@pytest.fixture
def foods(db: None) -> None:
    us = MarketFactory(code="US")
    for name, data_type, (kcal, protein, fat, carbs) in FOODS:
        nutrients = {"208": kcal, "203": protein, "204": fat, "205": carbs}
        FoodFactory(name=name, data_type=data_type, market=us, nutrients=nutrients)


def _names(lines: list[str], nutrition_type: str = "logging") -> list[str]:
    analysis = analysis_run(lines=lines, market="US", nutrition_type=nutrition_type)
    return [line["food"]["name"] for line in analysis.lines]


def test_a_survey_record_with_assumed_fat_comes_after_its_lean_kin(foods):
    assert _names(["150 g barley", "200 g boiled potatoes"]) == [
        "Barley, pearled, cooked",
        # of the lean kin, the one most like the record but for its fat: the flesh
        "Potatoes, boiled, cooked in skin, flesh, without salt",
    ]


def test_without_the_rule_the_survey_records_came_first(foods, monkeypatch):
    # The rule is what moves them: the order of the plate's forms as eaten alone keeps
    # FNDDS's records, nearer the line's words.
    monkeypatch.setattr(eaten, "lean_first", lambda order, *args, **kwargs: order)
    assert _names(["150 g barley", "200 g boiled potatoes"]) == ["Barley", "Potato, boiled, NFS"]


def test_a_survey_record_within_its_kins_range_keeps_its_place(foods):
    assert _names(["120 g salmon"]) == ["Fish, salmon, steamed"]


def test_a_line_naming_a_dish_made_with_fat_keeps_the_survey_record(foods):
    # "mashed" is a preparation the food words lose ("potatoes"): not the boiled potato
    assert _names(["200 g mashed potatoes"]) == ["Potato, boiled, NFS"]


def test_a_recipe_line_is_read_as_before(foods, monkeypatch):
    called: list[str] = []
    real = eaten.lean_first

    def spy(order: list[int], *args: object, **kwargs: object) -> list[int]:
        called.append("lean_first")
        return real(order, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(eaten, "lean_first", spy)
    # a recipe's barley: the order of meaning and the food as bought decide, never fat
    assert _names(["150 g barley", "200 g boiled potatoes"], "cooking") == [
        "Barley",
        "Potato, boiled, NFS",
    ]
    assert called == []
