"""POST /v1/analysis (catalogue/analysis/api.py, selectors.py) on real SR28 rows
(tests/catalogue/data/sr28, loaded by the real loader), on both backends."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts.models import Account
from catalogue.analysis.selectors import NUTRIENT_KEYS
from keys.services import key_create
from tests.factories import AccountFactory, FoodFactory, MarketFactory

URL = "/v1/analysis"


def _post(client: APIClient, body: object):
    return client.post(URL, body, format="json")


def _lines(client: APIClient, *lines: str) -> list[dict]:
    response = _post(client, {"ingredients": list(lines)})
    assert response.status_code == 200, response.content
    return response.json()["data"]["ingredients"]


def test_a_line_is_matched_weighed_and_scaled(sr28_small, taster):
    (line,) = _lines(taster, "2 tbsp butter")
    assert line["status"] == "matched"
    assert line["text"] == "2 tbsp butter"
    assert (line["quantity"], line["unit"], line["grams"]) == (2, "tbsp", 28.4)
    assert line["portion"] == "1 tbsp = 14.2 g"
    assert line["food"] == {"id": "sr28-01001", "name": "Butter, salted", "data_type": "sr_legacy"}
    assert line["nutrients"]["energy_kcal"] == pytest.approx(717 * 0.284, abs=0.01)
    assert set(line["nutrients"]) == set(NUTRIENT_KEYS)
    assert 1 <= len(line["alternatives"]) <= 3
    assert all(set(alt) == {"id", "name"} for alt in line["alternatives"])
    assert "sr28-01001" not in {alt["id"] for alt in line["alternatives"]}


@pytest.mark.parametrize(
    ("line", "food", "grams"),
    [
        ("1 large egg", "sr28-01123", 50),  # "Egg, whole, raw, fresh", not the yolk
        ("2 eggs", "sr28-01123", 88),  # no unit: the medium egg
        ("1 apple", "sr28-09003", 182),
        ("1 cup shredded cheddar cheese", "sr28-01009", 113),
        ("4 oz cheddar", "sr28-01009", 113.4),
        ("1 stick of butter", "sr28-01001", 113),
        ("3 butter cookies", "sr28-18155", 15),
        ("2 tbsp chunk style peanut butter", "sr28-16097", 32),
        ("1 cup buttermilk", "sr28-01088", 245),
    ],
)
def test_real_sr28_lines_find_the_food_meant_and_its_grams(
    sr28_small, unthrottled, line, food, grams
):
    (result,) = _lines(unthrottled, line)
    assert result["food"]["id"] == food
    assert result["grams"] == pytest.approx(grams, abs=0.05)


def test_a_volume_the_food_lacks_goes_through_another_volume_measure(sr28_small, unthrottled):
    # Peanut butter is measured in "2 tbsp" and "1 cup": a tsp is a third of a tbsp.
    (line,) = _lines(unthrottled, "1 tsp chunk style peanut butter")
    assert line["grams"] == pytest.approx(32 / 6, abs=0.05)
    assert line["portion"] == "2 tbsp = 32 g"


def test_lines_come_back_in_order_and_unmatched_ones_say_why(sr28_small, unthrottled):
    lines = _lines(unthrottled, "qwerty", "2 tbsp butter", "butter", "2 cups", "2 tbsp butter")
    assert [line["text"] for line in lines] == [
        "qwerty", "2 tbsp butter", "butter", "2 cups", "2 tbsp butter"
    ]  # fmt: skip
    assert [line["status"] for line in lines] == [
        "unmatched", "matched", "unmatched", "unmatched", "matched"
    ]  # fmt: skip
    for line in (lines[0], lines[2], lines[3]):
        assert line["food"] is None and line["grams"] is None and line["nutrients"] is None
        assert line["reason"]
    assert lines[1] == lines[4] | {"text": "2 tbsp butter"}


def test_totals_are_the_sum_of_the_lines(sr28_small, unthrottled):
    response = _post(
        unthrottled,
        {"ingredients": ["2 tbsp butter", "1 large egg", "1 apple", "qwerty", "1 cup buttermilk"]},
    )
    body = response.json()
    lines = [line for line in body["data"]["ingredients"] if line["status"] == "matched"]
    assert len(lines) == 4 and body["meta"]["matched"] == 4 and body["meta"]["lines"] == 5
    for key in NUTRIENT_KEYS:
        values = [line["nutrients"][key] for line in lines if line["nutrients"][key] is not None]
        expected = pytest.approx(sum(values), abs=0.011) if values else None
        assert body["data"]["totals"][key] == expected
        missing = any(line["nutrients"][key] is None for line in lines)
        assert (key in body["meta"]["incomplete_nutrients"]) == missing


def test_a_nutrient_a_matched_food_lacks_is_named_incomplete(db, unthrottled):
    market = MarketFactory(code="US")
    portions = [{"description": "1 cup", "gram_weight": 100.0}]
    FoodFactory(name="Zorblax", market=market, nutrients={"208": 50.0}, portions=portions)
    body = _post(unthrottled, {"ingredients": ["1 cup zorblax"]}).json()
    assert body["data"]["totals"]["energy_kcal"] == 50.0
    assert body["data"]["totals"]["protein_g"] is None
    assert "protein_g" in body["meta"]["incomplete_nutrients"]
    assert "energy_kcal" not in body["meta"]["incomplete_nutrients"]


def test_a_range_is_said(sr28_small, unthrottled):
    (line,) = _lines(unthrottled, "2-3 large eggs")
    assert line["range"] == {"low": 2, "high": 3}
    assert (line["quantity"], line["grams"]) == (2.5, 125)


LONG = "x" * 201


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (["2 tbsp butter"], "body"),
        ("2 tbsp butter", "body"),
        ({}, "ingredients"),
        ({"ingredients": "2 tbsp butter"}, "ingredients"),
        ({"ingredients": []}, "ingredients"),
        ({"ingredients": ["1 egg"] * 101}, "ingredients"),
        ({"ingredients": [LONG]}, "ingredients[0]"),
        ({"ingredients": ["1 egg", 2]}, "ingredients[1]"),
        ({"ingredients": ["1 egg", None]}, "ingredients[1]"),
        ({"ingredients": ["   "]}, "ingredients[0]"),
        ({"ingredients": ["1 egg\x00"]}, "ingredients[0]"),
        ({"ingredients": ["1 egg\x85"]}, "ingredients[0]"),  # NEL, a C1 control
        ({"ingredients": ["1 egg", "2 tbsp \u202erettub"]}, "ingredients[1]"),
        ({"ingredients": ["1 egg"], "portions": 2}, "portions"),  # servings is a member (38.6)
    ],
)
def test_each_bad_body_is_an_invalid_ingredients_problem(sr28_small, taster, body, field):
    response = _post(taster, body)
    assert response.status_code == 400
    problem = response.json()
    assert problem["type"] == "/problems/invalid-ingredients"
    assert problem["doc_url"].endswith("/docs#tag/invalid-ingredients")
    assert field in {error["field"] for error in problem["errors"]}
    assert "RateLimit-Remaining" in response  # counted like any read


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("2 tbsp butter\u0085", "U+0085"),  # NEL: Python's split() takes it for a space
        ("2 tbsp \u202erettub", "U+202E"),  # shown as "2 tbsp butter"
        ("\u2066" + "2 tbsp butter\u2069", "U+2066"),
        ("2 tbsp butter\u200f", "U+200F"),
        ("2 tbsp butter\u061c", "U+061C"),
        ("2 tbsp butter\x9b", "U+009B"),
    ],
)
def test_a_line_with_a_c1_or_bidi_control_is_refused_naming_it(sr28_small, taster, line, named):
    response = _post(taster, {"ingredients": ["1 egg", line]})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "field": "ingredients[1]",
            "detail": f"Must not hold control or bidi control characters ({named}).",
        }
    ]


def test_a_body_that_is_not_json_is_malformed(sr28_small, taster):
    response = taster.post(URL, b"{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["type"] == "/problems/malformed-request"


def test_a_full_body_of_100_long_lines_is_accepted(sr28_small, unthrottled):
    line = "2 tbsp butter " + "é" * 186  # 200 characters, 2 bytes each past the ASCII
    response = _post(unthrottled, {"ingredients": [line] * 100})
    assert response.status_code == 200
    assert len(response.json()["data"]["ingredients"]) == 100


def test_a_call_is_metered_once_whatever_its_lines(sr28_small, taster):
    first = _post(taster, {"ingredients": ["2 tbsp butter"]})
    second = _post(taster, {"ingredients": ["2 tbsp butter", "1 apple", "1 egg", "qwerty"]})
    assert int(second["RateLimit-Remaining"]) == int(first["RateLimit-Remaining"]) - 1
    assert taster.get("/v1/usage").json()["data"]["request_count"] == 2


def test_a_taster_without_market_is_refused(sr28_small, taster_no_market):
    response = _post(taster_no_market, {"ingredients": ["2 tbsp butter"]})
    assert response.status_code == 403
    assert response.json()["type"] == "/problems/market-not-selected"


def test_a_taster_gets_its_markets_foods_only(sr28_small):
    india = MarketFactory(code="IN", name="India")
    portions = [{"description": "1 tbsp", "gram_weight": 12.0}]
    FoodFactory(name="Butter, white", market=india, nutrients={"208": 700.0}, portions=portions)
    account: Account = AccountFactory(market="IN")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_create(account=account, label="in")[1])
    (line,) = _lines(client, "1 tbsp butter")
    assert line["food"]["name"] == "Butter, white" and line["grams"] == 12
    assert line["alternatives"] == []  # the US butters are not this market's
    assert (
        client.post(URL, {"ingredients": ["1 tbsp butter"]}, format="json").json()["meta"]["market"]
        == "IN"
    )


def test_unauthenticated_is_401(db):
    assert APIClient().post(URL, {"ingredients": ["1 egg"]}, format="json").status_code == 401


@given(lines=st.lists(st.text(max_size=210), min_size=1, max_size=4))
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_lines_are_answered_without_a_server_error(sr28_small, unthrottled, lines):
    response = _post(unthrottled, {"ingredients": lines})
    assert response.status_code in (200, 400), response.content
    if response.status_code == 200:
        results = response.json()["data"]["ingredients"]
        assert [r["text"] for r in results] == lines
    else:
        assert response.json()["type"] == "/problems/invalid-ingredients"


_TOKENS = st.sampled_from(
    ["1", "2", "0", "1/2", "1/0", "½", "1½", "-", "to", "a", "half", "dozen", "and", "g",
     "200g", "kg", "oz", "fl", "cup", "cups", "tbsp", "T", "t", "large", "slice", "can",
     "butter", "egg", "eggs", "milk", "(", ")", ",", "chopped", "cooked", "1e308", "99999999"]
)  # fmt: skip
_LINE = st.lists(_TOKENS | st.text(max_size=4), max_size=12).map(" ".join)


@given(lines=st.lists(_LINE, min_size=1, max_size=5))
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_lines_built_from_units_and_numbers_never_fail(sr28_small, unthrottled, lines):
    response = _post(unthrottled, {"ingredients": lines})
    assert response.status_code in (200, 400), response.content
    if response.status_code == 200:
        body = response.json()
        for result in body["data"]["ingredients"]:
            assert result["grams"] is None or 0 <= result["grams"] < 1e12


def test_a_get_is_a_405_and_not_metered(sr28_small, taster):
    response = taster.get(URL)
    assert response.status_code == 405
    assert response.json()["type"] == "/problems/method-not-allowed"
    assert "RateLimit-Remaining" not in response


def test_a_reference_food_is_searched_for_when_branded_titles_come_first(
    db, unthrottled, monkeypatch
):
    from catalogue.analysis import selectors

    monkeypatch.setattr(selectors, "CANDIDATES", 2)
    market = MarketFactory(code="US")
    cup = [{"description": "cup", "gram_weight": 120.0}]
    for n in range(3):
        FoodFactory(name="ZORB FLOUR", data_type="branded", market=market, portions=cup,
                    source="fdc", source_id=f"b{n}", nutrients={"208": 360.0})  # fmt: skip
    FoodFactory(
        name="Wheat flour, zorb, white",
        market=market,
        portions=[{"description": "1 cup", "gram_weight": 125.0}],
        nutrients={"208": 364.0},
    )
    (line,) = _lines(unthrottled, "1 cup zorb flour")
    assert (line["food"]["name"], line["grams"]) == ("Wheat flour, zorb, white", 125)
    assert line["alternatives"][0]["name"] == "ZORB FLOUR"


def _zorb(market, name: str, data_type: str = "survey", measure=None, **fields) -> None:
    """A food of ``name`` with one household measure ``(description, grams)``, or none."""
    portions = [{"description": measure[0], "gram_weight": measure[1]}] if measure else []
    FoodFactory(name=name, data_type=data_type, market=market, portions=portions,
                nutrients={"208": 100.0}, **fields)  # fmt: skip


def test_a_reference_food_without_measures_borrows_one_of_its_kind_from_sr28(db, unthrottled):
    market = MarketFactory(code="US")
    _zorb(market, "Zorbfruit, raw", source="fdc", source_id="f1")
    _zorb(market, "Zorbfruit, canned", "sr_legacy", ("1 medium", 300.0))
    _zorb(market, "Zorbfruit, Florida yellow, raw", "sr_legacy", ("1 medium", 150.0))
    _zorb(market, "Zorbfruit leaves, raw", "sr_legacy", ("1 cup", 14.0))
    zorb, leaves = _lines(unthrottled, "2 zorbfruit", "1 cup zorbfruit")
    # the Florida food adds two words: the best food keeps its name and borrows
    assert (zorb["food"]["name"], zorb["grams"]) == ("Zorbfruit, raw", 300)
    assert zorb["portion"] == "1 medium = 150 g (measure of Zorbfruit, Florida yellow, raw)"
    # neither the canned food (another state) nor the leaves (another food) lend
    assert leaves["food"]["name"] == "Zorbfruit leaves, raw"
    assert leaves["portion"] == "1 cup = 14 g"


def test_a_food_of_the_same_kind_with_its_own_measure_comes_before_a_lent_one(db, unthrottled):
    market = MarketFactory(code="US")
    _zorb(market, "Zorbnut, raw", source="fdc", source_id="f2")
    _zorb(market, "Zorbnut, roasted", "sr_legacy", ("1 cup", 140.0))
    _zorb(market, "Zorbnut, brown, raw", "sr_legacy", ("1 cup", 120.0))
    (line,) = _lines(unthrottled, "1 cup zorbnut")
    assert (line["food"]["name"], line["grams"], line["portion"]) == (
        "Zorbnut, brown, raw",
        120,
        "1 cup = 120 g",
    )


def test_without_a_lender_of_its_kind_the_next_food_that_can_weigh_is_matched(db, unthrottled):
    market = MarketFactory(code="US")
    _zorb(market, "Zorbseed", source="fdc", source_id="f3")
    _zorb(market, "Zorbseed greens, raw", "sr_legacy", ("1 cup, chopped", 56.0))
    (line,) = _lines(unthrottled, "1 cup zorbseed")
    assert (line["food"]["name"], line["grams"]) == ("Zorbseed greens, raw", 56)


def test_a_lender_outside_the_candidates_is_found_by_an_sr28_search(db, unthrottled, monkeypatch):
    from catalogue.analysis import selectors

    monkeypatch.setattr(selectors, "CANDIDATES", 1)
    market = MarketFactory(code="US")
    _zorb(market, "Zorbleaf", source="fdc", source_id="f4")
    _zorb(market, "Zorbleaf, dried, whole", "sr_legacy", ("1 tsp", 0.5))
    _zorb(market, "Zorbleaf, fresh", "sr_legacy", ("1 tbsp", 2.4))
    (line,) = _lines(unthrottled, "2 tsp zorbleaf")
    # the search's first food is the only candidate; the SR28 search finds its kin
    assert (line["food"]["name"], line["grams"]) == ("Zorbleaf", 1.6)
    assert line["portion"] == "1 tbsp = 2.4 g (measure of Zorbleaf, fresh)"


HONEY = [{"description": "1 cup", "gram_weight": 339.0},
         {"description": "1 tbsp", "gram_weight": 21.0}]  # fmt: skip


def test_a_line_over_the_weight_bound_is_refused_for_that_line(db, unthrottled):
    # SR28 19296's measures and energy; issue 36.6: 542 t of honey, 1.65e9 kcal, summed.
    FoodFactory(name="Honey", market=MarketFactory(code="US"), nutrients={"208": 304.0},
                portions=HONEY)  # fmt: skip
    body = _post(unthrottled, {"ingredients": ["99999 gallons honey", "1 tbsp honey"]}).json()
    heavy, light = body["data"]["ingredients"]
    assert heavy["status"] == "unmatched"
    assert heavy["reason"] == (
        "Weighs 542,394,576 g (1 cup = 339 g), over the 100 kg one line may weigh: "
        "check the amount and the unit."
    )
    assert (heavy["quantity"], heavy["unit"]) == (99999, "gallon")  # as written
    assert (heavy["grams"], heavy["nutrients"], heavy["food"]) == (None, None, None)
    assert heavy["alternatives"][0]["name"] == "Honey"  # the food it weighed with
    assert light["status"] == "matched" and light["grams"] == 21
    assert body["data"]["totals"]["energy_kcal"] == pytest.approx(63.84)
    assert body["meta"]["matched"] == 1


def test_the_bound_is_on_grams_after_conversion(sr28_small, unthrottled):
    exactly, over, count, volume = _lines(
        unthrottled, "100 kg butter", "99999999999 g butter", "3000 eggs", "300 l buttermilk"
    )
    assert (exactly["status"], exactly["grams"]) == ("matched", 100000)
    # a clamp of the count made this one 100 kg of butter, matched
    assert over["status"] == "unmatched" and over["reason"].startswith("Weighs 99,999,999,999 g")
    assert count["reason"].startswith("Weighs 132,000 g (1 medium = 44 g)")
    # the food matched is the one that weighed it, whatever its weight
    assert volume["reason"].startswith("Weighs 310,")
    assert volume["alternatives"][0]["id"] == "sr28-01088"


JALAPENO = [{"description": "1 cup, sliced", "gram_weight": 90.0},
            {"description": "1 pepper", "gram_weight": 14.0}]  # fmt: skip


def test_a_decomposed_accent_matches_as_the_composed_one(db, unthrottled):
    FoodFactory(name="Peppers, jalapeno, raw", market=MarketFactory(code="US"),
                nutrients={"208": 29.0}, portions=JALAPENO)  # fmt: skip
    composed, decomposed = _lines(unthrottled, "2 jalape\u00f1os", "2 jalapen\u0303os")
    assert decomposed["text"] == "2 jalapen\u0303os"  # echoed as sent
    for line in (composed, decomposed):
        assert line["food"]["name"] == "Peppers, jalapeno, raw"
        assert (line["grams"], line["portion"]) == (28, "1 pepper = 14 g")


# --- A meal in one sentence (issue 39.3) ---------------------------------------------


def test_a_sentence_is_split_into_items_each_analysed_as_a_line(sr28_small, taster):
    response = _post(taster, {"text": "2 eggs and 2 tbsp butter with qwerty", "servings": 2})
    assert response.status_code == 200, response.content
    body = response.json()
    lines = body["data"]["ingredients"]
    assert [line["text"] for line in lines] == ["2 eggs", "2 tbsp butter", "qwerty"]
    assert [line["status"] for line in lines] == ["matched", "matched", "unmatched"]
    assert lines[0]["food"]["id"] == "sr28-01123" and lines[1]["grams"] == 28.4
    assert body["meta"]["items"] == 3 and body["meta"]["lines"] == 3
    assert body["meta"]["matched"] == 2 and body["meta"]["servings"] == 2
    energy = body["data"]["totals"]["energy_kcal"]
    assert body["data"]["per_serving"]["energy_kcal"] == pytest.approx(energy / 2, abs=0.01)


def test_the_lines_form_has_no_items_count(sr28_small, taster):
    assert "items" not in _post(taster, {"ingredients": ["2 eggs"]}).json()["meta"]


def test_a_sentence_of_many_lines_is_one_text(sr28_small, taster):
    response = _post(taster, {"text": "Breakfast:\n1 apple\r\n\t2 eggs"})
    assert [line["text"] for line in response.json()["data"]["ingredients"]] == [
        "1 apple",
        "2 eggs",
    ]


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"text": "2 eggs", "ingredients": ["2 eggs"]}, {"text", "ingredients"}),
        ({"servings": 2}, {"ingredients"}),
        ({"text": "2 eggs " * 200}, {"text"}),  # 1,200 characters
        ({"text": ""}, {"text"}),
        ({"text": "   \n "}, {"text"}),
        ({"text": ["2 eggs"]}, {"text"}),
        ({"text": 12}, {"text"}),
        ({"text": None}, {"text"}),
        ({"text": "2 eggs\x00"}, {"text"}),
        ({"text": "2 eggs\x85"}, {"text"}),  # NEL, a C1 control
        ({"text": "2 eggs and \u202erettub"}, {"text"}),
        ({"text": "for breakfast, and, ;"}, {"text"}),  # names no food
        ({"text": ", ".join(["egg"] * 101)}, {"text"}),  # more items than lines allowed
        ({"text": "2 eggs", "servings": 0}, {"servings"}),
    ],
)
def test_each_bad_text_is_an_invalid_ingredients_problem_naming_the_field(
    sr28_small, taster, body, fields
):
    response = _post(taster, body)
    assert response.status_code == 400
    problem = response.json()
    assert problem["type"] == "/problems/invalid-ingredients"
    assert {error["field"] for error in problem["errors"]} == fields


def test_a_text_of_1000_characters_is_accepted(sr28_small, unthrottled):
    text = ("2 eggs and a slice of toast with butter, " * 30)[:1000]
    response = _post(unthrottled, {"text": text})
    assert response.status_code == 200
    assert response.json()["meta"]["items"] == len(response.json()["data"]["ingredients"]) > 60


def test_a_sentence_is_metered_once_whatever_its_items(sr28_small, taster):
    first = _post(taster, {"text": "2 eggs"})
    second = _post(taster, {"text": "2 eggs, 1 apple and a slice of toast with butter"})
    assert second.status_code == 200
    assert int(second["RateLimit-Remaining"]) == int(first["RateLimit-Remaining"]) - 1
    assert taster.get("/v1/usage").json()["data"]["request_count"] == 2


def test_a_taster_on_in_splits_an_indian_meal_among_its_markets_foods(sr28_small):
    india = MarketFactory(code="IN", name="India")
    FoodFactory(name="Lentil dal", data_type="ifct2017", market=india, nutrients={"208": 343})
    FoodFactory(name="Wheat flour, atta", data_type="ifct2017", market=india)
    account: Account = AccountFactory(market="IN")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_create(account=account, label="in")[1])
    response = _post(client, {"text": "two chapatis with 100 g dal and a cup of curd"})
    assert response.status_code == 200, response.content
    lines = response.json()["data"]["ingredients"]
    assert [line["text"] for line in lines] == ["two chapatis", "100 g dal", "a cup of curd"]
    assert lines[1]["food"]["name"] == "Lentil dal" and lines[1]["grams"] == 100
    assert lines[2]["quantity"] == 1 and lines[2]["unit"] == "cup"
    assert response.json()["meta"] == response.json()["meta"] | {"market": "IN", "items": 3}


@given(text=st.text(max_size=300))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_text_is_answered_without_a_server_error(sr28_small, unthrottled, text):
    response = _post(unthrottled, {"text": text})
    assert response.status_code in (200, 400)
