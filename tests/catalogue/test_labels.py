"""%Daily Value and the nutrition label (catalogue/labels.py, issue 40.1): the rules'
rounding as table tests from 21 CFR 101.9(c), FDA's sample label of the 2016 rule as a
worked example, FSSAI's per-serve %RDA, and the label block in records and analyses on
both backends."""

from __future__ import annotations

import pytest

from catalogue import labels
from tests.factories import FoodFactory, MarketFactory


@pytest.mark.parametrize(
    ("column", "value", "amount", "text"),
    [
        # calories, 101.9(c)(1): < 5 -> 0, <= 50 -> nearest 5, above -> nearest 10
        ("energy_kcal", 4.9, 0, "0"),
        ("energy_kcal", 47, 45, "45"),
        ("energy_kcal", 52.5, 50, "50"),
        ("energy_kcal", 236, 240, "240"),
        # fats, (c)(2): < 0.5 g -> 0, < 5 g -> nearest 0.5 g, else nearest 1 g
        ("fat_g", 0.49, 0, "0g"),
        ("fat_g", 3.3, 3.5, "3.5g"),
        ("saturated_fat_g", 4.74, 4.5, "4.5g"),
        ("fat_g", 5.5, 6, "6g"),
        # cholesterol, (c)(3): < 2 mg -> 0, 2-5 mg -> "less than 5 mg", else nearest 5 mg
        ("cholesterol_mg", 1.9, 0, "0mg"),
        ("cholesterol_mg", 3, 5, "less than 5mg"),
        ("cholesterol_mg", 31, 30, "30mg"),
        # sodium, potassium, (c)(4)-(5): < 5 mg -> 0, 5-140 mg -> nearest 5, else nearest 10
        ("sodium_mg", 4, 0, "0mg"),
        ("sodium_mg", 137, 135, "135mg"),
        ("sodium_mg", 142, 140, "140mg"),
        ("potassium_mg", 236, 240, "240mg"),
        # carbohydrate, fibre, sugars, protein, (c)(6)-(7): < 0.5 g -> 0, < 1 g -> "less
        # than 1 g", else nearest 1 g
        ("carbohydrate_g", 0.4, 0, "0g"),
        ("fiber_g", 0.7, 1, "less than 1g"),
        ("protein_g", 3.5, 4, "4g"),
        # calcium nearest 10 mg, iron nearest 0.1 mg
        ("calcium_mg", 264, 260, "260mg"),
        ("iron_mg", 7.96, 8, "8mg"),
    ],
)
def test_us_amounts_are_rounded_by_21_cfr_101_9_c(column, value, amount, text):
    assert labels.us_amount(column, value) == (amount, text)


@pytest.mark.parametrize(
    ("column", "value", "percent"),
    [
        ("fat_g", 8, 10),  # 10.3 % -> nearest percent
        ("sodium_mg", 160, 7),  # 6.96 %
        # vitamins and minerals, (c)(8)(iii): < 2 % -> 0; <= 10 % -> nearest 2; <= 50 % ->
        # nearest 5; above -> nearest 10
        ("calcium_mg", 20, 0),  # 1.5 %
        ("potassium_mg", 235, 6),  # 5 %
        ("iron_mg", 8, 45),  # 44.4 %
        ("calcium_mg", 1000, 80),  # 76.9 %
    ],
)
def test_us_percent_daily_values_are_rounded_by_the_rule(column, value, percent):
    assert labels.us_percent(column, value) == percent


def test_fdas_sample_label_of_the_2016_rule_is_reproduced():
    # 21 CFR 101.9(d)(12): serving 2/3 cup (55 g), the amounts as declared on it
    sample = {
        "energy_kcal": 230, "fat_g": 8, "saturated_fat_g": 1, "cholesterol_mg": 0,
        "sodium_mg": 160, "carbohydrate_g": 37, "fiber_g": 4, "sugars_g": 12,
        "protein_g": 3, "calcium_mg": 260, "iron_mg": 8, "potassium_mg": 235,
    }  # fmt: skip
    panel = labels.label(sample, "US", basis="per serving (2/3 cup, 55 g)")
    assert panel["format"] == "us_fda_2016" and "21 CFR 101.9" in panel["source"]
    printed = {row["name"]: (row["text"], row["percent"]) for row in panel["rows"]}
    assert printed == {
        "Calories": ("230", None),
        "Total Fat": ("8g", 10),
        "Saturated Fat": ("1g", 5),
        "Cholesterol": ("0mg", 0),
        "Sodium": ("160mg", 7),
        "Total Carbohydrate": ("37g", 13),
        "Dietary Fiber": ("4g", 14),
        "Total Sugars": ("12g", None),
        "Protein": ("3g", 6),
        "Calcium": ("260mg", 20),
        "Iron": ("8mg", 45),
        "Potassium": ("240mg", 6),
    }


def test_a_nutrient_not_measured_is_printed_as_unknown_never_zero():
    panel = labels.label({"energy_kcal": 100, "fat_g": None}, "US", basis="per 100 g")
    fat = next(row for row in panel["rows"] if row["nutrient"] == "fat_g")
    assert fat["amount"] is None and fat["text"] is None and fat["percent"] is None
    assert labels.daily_values({"fat_g": None}, "US")["percent"]["fat_g"] is None


def test_india_reads_fssais_per_serve_rda():
    serve = {"energy_kcal": 200, "fat_g": 6.7, "saturated_fat_g": 2.2, "sodium_mg": 500}
    values = labels.daily_values(serve, "IN")
    assert values["market"] == "IN" and "FSSAI" in values["source"]
    assert values["percent"] == {
        "energy_kcal": 10.0, "fat_g": 10.0, "saturated_fat_g": 10.0, "sodium_mg": 25.0
    }  # fmt: skip
    panel = labels.label(serve | {"protein_g": 4.26}, "IN", basis="per serve")
    rows = {row["nutrient"]: row for row in panel["rows"]}
    assert panel["format"] == "in_fssai_2020"
    assert rows["energy_kcal"]["text"] == "200 kcal" and rows["energy_kcal"]["percent"] == 10
    assert rows["protein_g"]["text"] == "4.3 g" and rows["protein_g"]["percent"] is None
    # other markets read the US rules
    assert labels.daily_values(serve, None)["market"] == "US"


@pytest.mark.django_db
def test_a_record_carries_its_markets_daily_values_and_label(taster, paid):
    FoodFactory(
        public_id="sr28-77001", name="Label test food", serving_description="1 cup",
        serving_grams=200.0, nutrients={"208": 100.0, "204": 3.9, "307": 115.0},
    )  # fmt: skip
    india = MarketFactory(code="IN", name="India")
    FoodFactory(public_id="ifct-Z001", source="ifct", data_type="ifct2017", market=india,
                name="Label test dal", nutrients={"208": 350.0, "204": 6.7})  # fmt: skip
    record = taster.get("/v1/foods/sr28-77001").json()["data"]
    assert record["daily_values"]["market"] == "US"
    assert record["daily_values"]["per_100g"]["fat_g"] == 5.0  # 3.9 of 78 g
    assert record["daily_values"]["per_serving"]["fat_g"] == 10.0
    assert record["label"]["basis"] == "per serving (1 cup, 200 g)"
    rows = {row["nutrient"]: row for row in record["label"]["rows"]}
    assert rows["energy_kcal"]["text"] == "200" and rows["sodium_mg"]["text"] == "230mg"
    indian = paid.get("/v1/foods/ifct-Z001").json()["data"]
    assert (
        indian["daily_values"]["market"] == "IN" and indian["daily_values"]["per_serving"] is None
    )
    assert indian["daily_values"]["per_100g"]["energy_kcal"] == 17.5
    assert indian["label"]["format"] == "in_fssai_2020" and indian["label"]["basis"] == "per 100 g"


@pytest.mark.django_db
def test_an_analysis_carries_daily_values_of_its_totals_and_servings_and_a_label(unthrottled):
    FoodFactory(name="Butter, salted", portions=[{"description": "1 tbsp", "gram_weight": 14.2}],
                nutrients={"208": 717.0, "204": 81.11, "606": 51.37, "307": 643.0})  # fmt: skip
    body = {"ingredients": ["4 tbsp butter"], "servings": 2}
    data = unthrottled.post("/v1/analysis", body, format="json").json()["data"]
    fat = data["totals"]["fat_g"]  # 56.8 g of butter: 46.07 g of fat
    assert data["daily_values"]["market"] == "US"
    assert data["daily_values"]["totals"]["fat_g"] == round(100 * fat / 78, 1)
    assert data["daily_values"]["per_serving"]["fat_g"] == round(100 * (fat / 2) / 78, 1)
    assert data["label"]["basis"] == "per serving (1 of 2)"
    rows = {row["nutrient"]: row for row in data["label"]["rows"]}
    assert rows["fat_g"]["text"] == "23g" and rows["fat_g"]["percent"] == 30  # 29.5 %
    whole = unthrottled.post("/v1/analysis", {"ingredients": ["4 tbsp butter"]}, format="json")
    assert whole.json()["data"]["label"]["basis"] == "whole recipe"
    assert "per_serving" not in whole.json()["data"]["daily_values"]
