"""Records show their household measures (issue 26, point 4): every SR28 WEIGHT row is
stored with its food and listed by GET /v1/foods/{id}, the measures analysis weighs by."""

from __future__ import annotations

from catalogue.models import Food
from tests.catalogue.conftest import DATA


def test_every_sr28_measure_is_stored_with_its_food(sr28_small):
    rows = (DATA / "sr28" / "WEIGHT.txt").read_text(encoding="latin-1").split("\n")
    stored = sum(len(food.portions) for food in Food.objects.filter(source="sr28"))
    assert stored == len([row for row in rows if row.strip()])


def test_a_record_lists_every_measure_in_the_sources_order(sr28_small, taster):
    body = taster.get("/v1/foods/sr28-01123").json()["data"]
    assert body["portions"] == [
        {"description": "1 large", "gram_weight": 50.0},
        {"description": "1 extra large", "gram_weight": 56.0},
        {"description": "1 jumbo", "gram_weight": 63.0},
        {"description": "1 cup (4.86 large eggs)", "gram_weight": 243.0},
        {"description": "1 medium", "gram_weight": 44.0},
        {"description": "1 small", "gram_weight": 38.0},
    ]
