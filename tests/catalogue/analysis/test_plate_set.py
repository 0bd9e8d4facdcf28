"""The logged plates' scorer (tests/support/judged/plate_scoring.py, the CI run of
bench/scripts/plate_quality.py) on a sample: plates of tests/support/judged/plate_set.py
whose reference foods are factory foods with their SR28 ids, names and values, beside
their raw forms; on both backends."""

from __future__ import annotations

import pytest

from tests.factories import FoodFactory, MarketFactory
from tests.support.judged import plate_set
from tests.support.judged.plate_scoring import evaluate, rates, report

# SR28 values per 100 g: energy, protein, fat, carbohydrate (NDB 208, 203, 204, 205).
VALUES = {
    "Rice, brown, long-grain, cooked": (123, 2.74, 0.97, 25.58),
    "Rice, brown, long-grain, raw": (367, 7.54, 3.2, 76.25),
    "Quinoa, cooked": (120, 4.4, 1.92, 21.3),
    "Quinoa, uncooked": (368, 14.12, 6.07, 64.16),
    "Millet, cooked": (119, 3.51, 1.0, 23.67),
    "Millet, raw": (378, 11.02, 4.22, 72.85),
    "Lentils, mature seeds, cooked, boiled, without salt": (116, 9.02, 0.38, 20.13),
    "Lentils, raw": (352, 24.63, 1.06, 63.35),
    "Apples, raw, with skin": (52, 0.26, 0.17, 13.81),
    "Milk, whole, 3.25% milkfat, with added vitamin D": (61, 3.15, 3.25, 4.8),
}
SAMPLE_WORDS = {"brown rice", "quinoa", "millet", "lentils", "apple", "whole milk"}
SAMPLE = [plate for plate in plate_set.US if all(words in SAMPLE_WORDS for _, words in plate)] + [
    [(150, "brown rice"), (150, "lentils")],
    [(160, "quinoa"), (250, "whole milk")],
]
FOODS = {words: ref for words, ref in plate_set.FOODS.items() if words in SAMPLE_WORDS}


@pytest.fixture
def plate_foods(db: None) -> None:
    us = MarketFactory(code="US")
    ids = {name: public_id for public_id, name in FOODS.values()}
    for name, (kcal, protein, fat, carbs) in VALUES.items():
        public_id = ids.get(name)
        extra = {"public_id": public_id, "source_id": public_id[5:]} if public_id else {}
        nutrients = {"208": kcal, "203": protein, "204": fat, "205": carbs}
        FoodFactory(name=name, market=us, nutrients=nutrients, **extra)


def test_the_plate_set_is_large_enough_and_names_its_foods():
    assert len(plate_set.US) >= 60 and len(plate_set.IN) >= 20
    for plate in plate_set.US + plate_set.IN:
        assert plate and all(words in plate_set.FOODS and grams > 0 for grams, words in plate)
    assert all(public_id.startswith("sr28-") for public_id, _ in plate_set.FOODS.values())


def test_logged_plates_weigh_what_was_eaten_on_the_sample(plate_foods):
    outcomes = evaluate(SAMPLE, FOODS, market="US")
    misses = "\n".join(report(outcomes))
    for key, (hits, total) in rates(outcomes).items():
        assert hits == total, (key, misses)


def test_read_as_bought_the_same_plates_miss_and_are_printed(plate_foods):
    outcomes = evaluate(SAMPLE, FOODS, market="US", nutrition_type="cooking")
    lines = report(outcomes)
    assert rates(outcomes)["energy_kcal"][0] < len(SAMPLE)
    assert any(
        line.startswith("MISS 150 g brown rice") and "Rice, brown, long-grain, raw" in line
        for line in lines
    )
    assert lines[-4].startswith("energy_kcal: ")


def test_a_reference_not_named_as_written_is_refused(plate_foods):
    wrong = {"brown rice": ("sr28-20037", "Rice, brown, long-grain, raw")}
    with pytest.raises(LookupError):
        evaluate([[(150, "brown rice")]], wrong, market="US")
