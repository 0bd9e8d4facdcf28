"""The ``net_carbs_g`` headline (issue 42.5): carbohydrate by difference minus total
dietary fibre where both are measured, null otherwise, never negative; in records,
list summaries and analyses, and the stored renderings made again for it."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from catalogue.delivery import rendering
from catalogue.models import Food, FoodRendering
from catalogue.nutrients import HEADLINES, headline_amounts, net_carbs
from tests.factories import FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("carbohydrate", "fiber", "expected"),
    [
        (14.66, 2.4, 12.26),  # not 12.260000000000002: rounded like per_serving
        (0.06, 0.0, 0.06),  # a measured 0 of fibre is an amount
        (100.0, 0.123, 99.877),
        (None, 2.4, None),  # carbohydrate not measured: unknown, never 0 - 2.4
        (14.66, None, None),  # fibre not measured: unknown, never 14.66 - 0
        (None, None, None),
        (1.0, 3.0, 0.0),  # fibre above carbohydrate: none left, not -2
        (-0.3, 0.0, 0.0),  # USDA's slightly negative "by difference" values
    ],
)
def test_net_carbs_is_carbohydrate_minus_fibre_where_both_are_measured(
    carbohydrate, fiber, expected
):
    assert net_carbs(carbohydrate, fiber) == expected


def test_headline_amounts_put_net_carbs_after_the_columns():
    row = dict.fromkeys(h.column for h in HEADLINES) | {"carbohydrate_g": 20.0, "fiber_g": 5.5}
    amounts = headline_amounts(row)
    assert list(amounts) == [*row, "net_carbs_g"] and amounts["net_carbs_g"] == 14.5


def _food(name: str, nutrients: dict[str, float], **extra) -> Food:
    return FoodFactory(name=name, nutrients=nutrients, serving_grams=50.0, **extra)


@pytest.mark.parametrize(
    ("nutrients", "per_100g", "per_serving"),
    [
        ({"205": 14.66, "291": 2.4}, 12.26, 6.13),
        ({"205": 14.66}, None, None),
        ({"291": 2.4}, None, None),
        ({"205": 1.0, "291": 3.0}, 0.0, 0.0),
    ],
)
def test_records_and_list_summaries_carry_net_carbs(taster, paid, nutrients, per_100g, per_serving):
    food = _food("Netcarb test food", nutrients)
    record = taster.get(f"/v1/foods/{food.public_id}").json()["data"]
    assert record["nutrients_per_100g"]["net_carbs_g"] == per_100g
    assert record["nutrients_per_serving"]["net_carbs_g"] == per_serving
    listed = paid.get("/v1/foods?q=netcarb").json()["data"]
    assert [f["nutrients_per_100g"]["net_carbs_g"] for f in listed] == [per_100g]
    # Not a label value (21 CFR 101.9 has no net carbs): the label is unchanged.
    assert "net_carbs_g" not in {row["nutrient"] for row in record["label"]["rows"]}


def test_an_analysis_line_and_its_totals_carry_net_carbs(sr28_small, unthrottled):
    body = unthrottled.post(
        "/v1/analysis", {"ingredients": ["1 apple", "1 cup buttermilk"]}, format="json"
    ).json()
    lines = [line for line in body["data"]["ingredients"] if line["status"] == "matched"]
    assert len(lines) == 2
    for line in lines:
        food = Food.objects.get(public_id=line["food"]["id"])
        expected = net_carbs(food.carbohydrate_g, food.fiber_g)
        assert expected is not None
        assert line["nutrients"]["net_carbs_g"] == round(expected * line["grams"] / 100, 2)
    total = sum(line["nutrients"]["net_carbs_g"] for line in lines)
    assert body["data"]["totals"]["net_carbs_g"] == pytest.approx(total, abs=0.011)


def test_the_rendering_format_covers_the_net_carbs_code():
    """A change to how net carbs are worked out changes ``render_format()``, so stored
    renderings made by the code before it are never served."""
    hashed = {
        Path(inspect.getfile(__import__(name, fromlist=["_"]))) for name in rendering.FORMAT_MODULES
    }
    assert Path(inspect.getfile(net_carbs)) in hashed
    assert Path(inspect.getfile(headline_amounts)) in hashed


def test_a_rendering_stored_before_net_carbs_is_made_again_on_its_next_read(taster):
    food = _food("Netcarb stale food", {"205": 10.0, "291": 4.0})
    rendering.render_foods([food.pk])
    stored = FoodRendering.objects.get(food_id=food.pk)
    old_record = stored.body().replace(b',"net_carbs_g":6.0', b"")
    assert old_record != stored.body()  # the old code's bytes, without it
    rendering._store(
        [
            rendering.Rendering(
                food_id=food.pk,
                version=stored.version,
                revision=stored.revision,
                etag='"before-net-carbs"',
                record=old_record,
                summary=bytes(stored.summary).replace(b',"net_carbs_g":6.0', b""),
                format="0000000000000000",  # the fingerprint of the code before
            )
        ]
    )
    response = taster.get(f"/v1/foods/{food.public_id}")
    assert response["ETag"] != '"before-net-carbs"'
    assert response.json()["data"]["nutrients_per_100g"]["net_carbs_g"] == 6.0
    again = FoodRendering.objects.get(food_id=food.pk)
    assert again.format == rendering.render_format() and b"net_carbs_g" in again.body()


def test_an_indian_food_has_no_net_carbs(paid):
    """IFCT's carbohydrate is available carbohydrate (10001, fibre already out), not
    USDA's 205 by difference: the headline carbohydrate is null, and so is net carbs."""
    food = FoodFactory(
        source="ifct",
        source_id="A002",
        name="Netcarb dal",
        data_type="ifct2017",
        market=MarketFactory(code="IN", name="India"),
        nutrients={"291": 5.0, "10001": 20.0},
    )
    record = paid.get(f"/v1/foods/{food.public_id}").json()["data"]
    assert record["nutrients_per_100g"]["fiber_g"] == 5.0
    assert record["nutrients_per_100g"]["net_carbs_g"] is None
