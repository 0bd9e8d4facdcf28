"""A meal in one sentence (issue 39.3): catalogue/analysis/sentences.py cuts the text
(pure table tests of diary sentences), catalogue/analysis/dishes.py keeps a dish the
catalogue names whole (factory foods named as SR28 and FNDDS name them, both backends)."""

from __future__ import annotations

import pytest

from catalogue.analysis.dishes import named
from catalogue.analysis.parser import parse_line
from catalogue.analysis.sentences import MAX_JOINS, Piece, items, joins, pieces
from tests.factories import FoodFactory, MarketFactory
from tests.support.judged.sentence_scoring import evaluate, report


def _split(sentence: str) -> list[str]:
    """The items when no cut joins a dish."""
    return items(pieces(sentence), set())


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("2 eggs and a slice of toast with butter", ["2 eggs", "a slice of toast", "butter"]),
        ("oatmeal with blueberries and a coffee", ["oatmeal", "blueberries", "a coffee"]),
        ("Breakfast: 2 scrambled eggs, 1 slice whole wheat toast", [
            "2 scrambled eggs", "1 slice whole wheat toast"]),
        ("I had a banana and a glass of milk for breakfast", ["a banana", "a glass of milk"]),
        ("chicken breast, grilled, and rice", ["chicken breast, grilled", "rice"]),
        ("apple; yogurt\nalmonds", ["apple", "yogurt", "almonds"]),
        ("coffee & a bagel w/ cream cheese", ["coffee", "a bagel", "cream cheese"]),
        ("salad plus a roll", ["salad", "a roll"]),
        ("3 tbsp plus 2 tsp butter", ["3 tbsp plus 2 tsp butter"]),  # a composite amount
        ("one and a half cups of rice and dal", ["one and a half cups of rice", "dal"]),
        ("1 and 1/2 cups milk", ["1 and 1/2 cups milk"]),
        ("toast. then 2 eggs", ["toast", "2 eggs"]),
        ("1.5 cups rice, 2,5 dl milk", ["1.5 cups rice", "2,5 dl milk"]),  # decimals stay
        ("eggs, and toast", ["eggs", "toast"]),
        ("Lunch: ", []),
        ("and and ,, ;", []),
    ],
)  # fmt: skip
def test_diary_sentences_are_cut_into_their_items(sentence, expected):
    assert _split(sentence) == expected


def test_a_hard_cut_leaves_no_join_to_ask_about_and_a_soft_one_names_its_words():
    found = pieces("2 eggs, toast and a bowl of mac and cheese")
    assert [p.joiner for p in found] == ["", "", "and", "and"]
    asked = joins(found)
    assert [j.index for j in asked] == [2, 3]
    assert asked[1].terms == (("mac", "cheese"), ("cheese", "mac"))
    assert asked[1].pattern == (
        r"^(?:mac\w*[ -]+and\w*[ -]+chees\w*|chees\w*[ -]+and\w*[ -]+mac\w*)(?:\W|$)"
        r"|, (?:mac\w*[ -]+and\w*[ -]+chees\w*)(?:\W|$)"
    )


@pytest.mark.parametrize(
    ("item", "quantity", "unit", "food"),
    [
        ("two eggs", 2, None, "eggs"),
        ("a slice of toast", 1, "slice", "toast"),
        ("half a cup of rice", 0.5, "cup", "rice"),
        ("a handful of almonds", 1, "handful", "almonds"),
        ("a bowl of oatmeal", 1, "bowl", "oatmeal"),
        ("a glass of milk", 1, "glass", "milk"),
        ("a mug of tea", 1, "mug", "tea"),
        ("a dozen almonds", 12, None, "almonds"),
    ],
)
def test_amounts_as_words_stay_with_their_item(item, quantity, unit, food):
    (found,) = _split(f"coffee and {item}")[1:]
    line = parse_line(found)
    assert (line.quantity, line.unit and line.unit.name, line.food) == (quantity, unit, food)


def test_a_glass_a_mug_and_a_bowl_are_one_cup():
    cup = parse_line("1 cup milk").unit
    for word in ("glass", "mug", "bowl"):
        unit = parse_line(f"1 {word} milk").unit
        assert unit.kind == "volume" and unit.size == cup.size


def test_items_join_back_the_cuts_that_make_a_dish():
    found = [Piece("a bowl of mac"), Piece("cheese", "and"), Piece("an apple", "and")]
    assert items(found, {1}) == ["a bowl of mac and cheese", "an apple"]


def _dishes(sentence: str, market: str | None = None) -> list[str]:
    found = pieces(sentence)
    return items(found, named(joins(found, market), market))


@pytest.fixture
def dishes(db):
    us = MarketFactory(code="US", name="United States")
    for name, data_type in [
        ("Macaroni and cheese, frozen entree", "sr_legacy"),
        ("Peanut butter and jelly sandwich, NFS", "survey"),
        ("Beans and rice, with meat", "survey"),
        ("Salt, table", "sr_legacy"),
        ("Spices, pepper, black", "sr_legacy"),
        ("Fish and chips", "survey"),
        ("Bread, whole-wheat, toasted", "sr_legacy"),
        ("Ham and cheese loaf or roll", "sr_legacy"),
        ("Restaurant, family style, spaghetti and meatballs", "sr_legacy"),
        ("Cookie, oatmeal, with raisins", "survey"),
        ("Fast foods, taco with beef, cheese and lettuce, hard shell", "sr_legacy"),
    ]:
        FoodFactory(name=name, data_type=data_type, market=us)
    FoodFactory(name="SALT AND PEPPER SEASONING", data_type="branded", market=us)
    return us


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("a bowl of mac and cheese and an apple", ["a bowl of mac and cheese", "an apple"]),
        ("a peanut butter and jelly sandwich", ["a peanut butter and jelly sandwich"]),
        ("fish and chips", ["fish and chips"]),
        ("1 cup rice and beans", ["1 cup rice and beans"]),  # "Beans and rice": either order
        ("salt and pepper", ["salt", "pepper"]),  # a branded title names no dish
        ("toast and jelly", ["toast", "jelly"]),
        ("a grilled ham and cheese sandwich", ["a grilled ham and cheese sandwich"]),
        ("spaghetti and meatballs", ["spaghetti and meatballs"]),  # after a comma
        ("oatmeal with raisins", ["oatmeal", "raisins"]),  # "with" after a comma: no dish
        ("lettuce and cheese", ["lettuce", "cheese"]),  # a dish's parts, not a dish
    ],
)
def test_a_dish_the_catalogue_names_is_kept_whole(dishes, sentence, expected):
    assert _dishes(sentence) == expected


def test_a_dish_of_another_market_is_not_kept_whole(dishes):
    MarketFactory(code="IN", name="India")
    assert _dishes("fish and chips", "IN") == ["fish", "chips"]
    assert _dishes("fish and chips", "US") == ["fish and chips"]


def test_the_scorer_counts_a_sentence_right_only_with_exactly_its_items(dishes):
    outcomes = evaluate(
        [("Mac and cheese and an apple", ["mac and cheese", "an  Apple"]),
         ("salt and pepper", ["salt and pepper"])],
        market="US",
    )  # fmt: skip
    assert [o.right for o in outcomes] == [True, False]
    assert report(outcomes)[-1] == "sentences right: 1/2 = 50% (target 90%)"


def test_a_long_text_asks_about_at_most_max_joins_distinct_readings():
    sentence = " and ".join(f"dish{i}" for i in range(60)) + " and dish0 and dish1"
    asked = joins(pieces(sentence))
    assert len({j.pattern for j in asked}) == MAX_JOINS
    assert asked[-1].index == 61  # "dish0 and dish1" again: a reading already asked


def test_a_word_under_three_letters_matches_only_itself():
    (join,) = joins(pieces("pb and j"))
    assert join.pattern.startswith(r"^(?:pb[ -]+and\w*[ -]+j|")
