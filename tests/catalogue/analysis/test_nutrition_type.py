"""``"nutrition_type": "cooking" | "logging"`` of ``POST /v1/analysis`` (issue 39.4): the
contract (the default of each form, explicit values, a bad value, the echo in ``meta``)
and a logging analysis choosing the cooked food, on factory foods named as SR28 and
FNDDS name them; on both backends."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from catalogue.analysis import selectors
from catalogue.analysis.api import analysis_request
from catalogue.analysis.selectors import analysis_run
from catalogue.analysis.sentences import pieces
from core import problems
from tests.factories import FoodFactory, MarketFactory

URL = "/v1/analysis"
CUP_RAW = [{"description": "1 cup", "gram_weight": 185.0}]
CUP_COOKED = [{"description": "1 cup", "gram_weight": 202.0}]


@pytest.fixture
def plate_foods(db: None) -> None:
    """Brown rice raw and cooked, cured bacon unprepared and baked, an apple raw (and
    SR28's boiled one, made from the raw one), whole milk: SR28's names, SR28's energy."""
    us = MarketFactory(code="US")
    for name, kcal, portions in [
        ("Rice, brown, long-grain, raw", 367.0, CUP_RAW),
        ("Rice, brown, long-grain, cooked", 123.0, CUP_COOKED),
        ("Pork, cured, bacon, unprepared", 417.0, []),
        ("Pork, cured, bacon, cooked, baked", 548.0, []),
        ("Apples, raw, with skin", 52.0, []),
        ("Apples, raw, without skin, cooked, boiled", 53.0, []),
        ("Milk, whole, 3.25% milkfat, with added vitamin D", 61.0, []),
    ]:
        FoodFactory(name=name, market=us, nutrients={"208": kcal}, portions=portions)


def _answer(client: APIClient, body: dict) -> dict:
    response = client.post(URL, body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _foods(answer: dict) -> list[str | None]:
    return [line["food"] and line["food"]["name"] for line in answer["data"]["ingredients"]]


# --- the contract -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"ingredients": ["150 g brown rice"]}, "cooking"),
        ({"text": "150 g brown rice"}, "logging"),
        ({"ingredients": ["150 g brown rice"], "nutrition_type": "logging"}, "logging"),
        ({"ingredients": ["150 g brown rice"], "nutrition_type": "cooking"}, "cooking"),
        ({"text": "150 g brown rice", "nutrition_type": "cooking"}, "cooking"),
        ({"text": "150 g brown rice", "nutrition_type": "logging"}, "logging"),
    ],
)
def test_each_form_has_its_default_and_an_explicit_value_wins(body, expected):
    assert analysis_request(body).nutrition_type == expected


@pytest.mark.parametrize("value", ["Logging", "eating", "", None, 1, True, ["logging"]])
def test_any_other_value_is_refused_naming_the_field(value):
    with pytest.raises(problems.InvalidIngredients) as refused:
        analysis_request({"ingredients": ["1 egg"], "nutrition_type": value})
    assert [e["field"] for e in refused.value.extra["errors"]] == ["nutrition_type"]


def test_a_bad_value_is_a_400_naming_it_with_the_other_faults(plate_foods, unthrottled):
    body = {"ingredients": ["1 egg", 5], "nutrition_type": "eaten"}
    response = unthrottled.post(URL, body, format="json")
    assert response.status_code == 400
    problem = response.json()
    assert problem["type"] == "/problems/invalid-ingredients"
    assert {e["field"] for e in problem["errors"]} == {"ingredients[1]", "nutrition_type"}
    text = unthrottled.post(URL, {"text": "rice", "nutrition_type": 2}, format="json")
    assert text.status_code == 400
    assert [e["field"] for e in text.json()["errors"]] == ["nutrition_type"]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"ingredients": ["150 g brown rice"]}, "cooking"),
        ({"text": "150 g brown rice"}, "logging"),
        ({"ingredients": ["150 g brown rice"], "nutrition_type": "logging"}, "logging"),
        ({"text": "150 g brown rice", "nutrition_type": "cooking"}, "cooking"),
    ],
)
def test_meta_says_how_the_lines_were_read(plate_foods, unthrottled, body, expected):
    assert _answer(unthrottled, body)["meta"]["nutrition_type"] == expected


# --- as bought or as eaten ----------------------------------------------------------

PLATE = ["150 g brown rice", "30 g bacon", "150 g apple", "250 g milk"]


def test_cooking_reads_foods_as_bought(plate_foods, unthrottled):
    answer = _answer(unthrottled, {"ingredients": PLATE})
    assert _foods(answer)[:2] == ["Rice, brown, long-grain, raw", "Pork, cured, bacon, unprepared"]


def test_logging_reads_foods_as_eaten_unless_eaten_raw(plate_foods, unthrottled):
    answer = _answer(unthrottled, {"ingredients": PLATE, "nutrition_type": "logging"})
    assert _foods(answer) == [
        "Rice, brown, long-grain, cooked",
        "Pork, cured, bacon, cooked, baked",
        "Apples, raw, with skin",  # SR28's boiled apple is made from the raw one
        "Milk, whole, 3.25% milkfat, with added vitamin D",  # no cooked form
    ]
    rice = answer["data"]["ingredients"][0]
    assert rice["nutrients"]["energy_kcal"] == pytest.approx(123 * 1.5)


def test_a_line_stating_its_state_is_read_as_it_says(plate_foods, unthrottled):
    body = {"ingredients": ["150 g raw brown rice"], "nutrition_type": "logging"}
    assert _foods(_answer(unthrottled, body)) == ["Rice, brown, long-grain, raw"]


def test_a_sentence_is_a_plate_and_weighs_the_cooked_food_s_cup(plate_foods, unthrottled):
    answer = _answer(unthrottled, {"text": "a cup of brown rice and 150 g apple"})
    rice = answer["data"]["ingredients"][0]
    assert rice["food"]["name"] == "Rice, brown, long-grain, cooked"
    assert rice["grams"] == 202.0
    cooking = _answer(unthrottled, {"text": "1 cup brown rice", "nutrition_type": "cooking"})
    assert cooking["data"]["ingredients"][0]["grams"] == 185.0


def test_a_cooked_form_outside_the_top_candidates_is_searched_once_more(plate_foods, monkeypatch):
    # One candidate a search: the cooked rice is not among "brown rice"'s, so the line's
    # words are searched again with "cooked" (once for the line, repeated or not).
    monkeypatch.setattr(selectors, "CANDIDATES", 1)
    searched: list[str] = []
    real = selectors.food_top_ids

    def counting(**kwargs: object) -> list[int]:
        searched.append(str(kwargs["q"]))
        return real(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(selectors, "food_top_ids", counting)
    cooking = analysis_run(lines=["150 g brown rice"], market="US")
    first = cooking.lines[0]["food"]["name"]
    searched.clear()
    lines = ["150 g brown rice", "150 g brown rice"]
    logging = analysis_run(lines=lines, market="US", nutrition_type="logging")
    names = [line["food"]["name"] for line in logging.lines]
    assert names == ["Rice, brown, long-grain, cooked"] * 2
    if first != "Rice, brown, long-grain, cooked":
        assert searched == ["brown rice", "brown rice cooked"]


def test_the_sentence_pieces_keep_their_nutrition_type(plate_foods):
    items, analysis = selectors.sentence_run(
        found=pieces("150 g brown rice"), market="US", nutrition_type="cooking"
    )
    assert items == ["150 g brown rice"]
    assert analysis.lines[0]["food"]["name"] == "Rice, brown, long-grain, raw"
