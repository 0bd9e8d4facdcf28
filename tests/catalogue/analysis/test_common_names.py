"""A line naming a food by another of its names (issue 38.4): SR28's common names
(FOOD_DES ComName: "spaghetti" for "Pasta, dry, enriched") and IFCT's local names, read
by the loader (catalogue/importers/sr28.py), found by the analysis
(catalogue.search.selectors.food_ids_named) and ranked by meaning
(catalogue.analysis.choosing.by_meaning), on both backends."""

from __future__ import annotations

import pytest

from catalogue.analysis.choosing import by_meaning
from catalogue.analysis.selectors import analysis_run
from catalogue.importers.sr28 import COMMON_NAME, common_names
from catalogue.models import DataType
from catalogue.search import text
from catalogue.search.selectors import food_ids_named
from tests.factories import FoodFactory

SR, IFCT = "sr_legacy", "ifct2017"
REFERENCE = (DataType.SR_LEGACY, DataType.FOUNDATION, DataType.SURVEY, DataType.IFCT)


@pytest.mark.parametrize(
    ("field", "names"),
    [
        (
            "macaroni product, spaghetti, elbow macaroni, lasagna",
            ("macaroni product", "spaghetti", "elbow macaroni", "lasagna"),
        ),
        ("hot dog, frank, wiener", ("hot dog", "frank", "wiener")),
        ("pak choi, bok choy", ("pak choi", "bok choy")),
        # USDA's notes are not names: a commodity code, a recipe number, "Includes ..."
        ("USDA Commodity A532 (12.5 oz can) and A507(50 oz can)", ()),
        ("NFSMI Recipe No. G-08", ()),
        ("Includes USDA commodity food B477", ()),
        ("oatmeal, Includes USDA Commodity B855", ("oatmeal",)),
        ("", ()),
    ],
)
def test_sr28s_common_names_are_read_without_usdas_notes(field, names):
    assert common_names(field) == ({COMMON_NAME: names} if names else {})


def _aliases(*names: str) -> str:
    return text.search_aliases({COMMON_NAME: names})


def test_a_food_another_name_of_which_is_the_line_is_the_food_the_line_names():
    foods = [
        ("Squash, spaghetti, peeled, seeded, raw", "foundation"),
        ("Spaghetti, spinach, dry", SR),
        ("Pasta, cooked, enriched, without added salt", SR),
        ("Pasta, dry, enriched", SR),
    ]
    aliases = ["", "", _aliases("spaghetti", "penne"), _aliases("macaroni product", "spaghetti")]
    # as bought: the dry pasta; "cooked": the cooked one, not a dry one named spaghetti
    first = by_meaning(foods, "spaghetti", food="spaghetti", aliases=aliases)[0]
    assert foods[first][0] == "Pasta, dry, enriched"
    first = by_meaning(foods, "cooked spaghetti", food="cooked spaghetti", aliases=aliases)[0]
    assert foods[first][0] == "Pasta, cooked, enriched, without added salt"
    # without the other names, the name holding the word wins, as before
    assert foods[by_meaning(foods, "spaghetti", food="spaghetti")[0]][0] != "Pasta, dry, enriched"


def test_a_food_whose_own_name_holds_the_line_comes_before_one_named_so_elsewhere():
    # IFCT: "spinach" is also a local name of agathi leaves, "nutmeg" one of mace
    foods = [("Agathi leaves", IFCT), ("Spinach", IFCT), ("Mace", IFCT), ("Nutmeg", IFCT)]
    aliases = [_aliases("spinach", "agathi"), _aliases("palak"), _aliases("nutmeg"), ""]
    assert foods[by_meaning(foods[:2], "spinach", food="spinach", aliases=aliases[:2])[0]][0] == (
        "Spinach"
    )
    assert foods[2:][by_meaning(foods[2:], "nutmeg", food="nutmeg", aliases=aliases[2:])[0]][0] == (
        "Nutmeg"
    )


def test_a_stated_state_the_named_food_does_not_state_keeps_it_behind():
    foods = [
        ("Chickpeas (garbanzo beans, bengal gram), mature seeds, cooked, boiled, with salt", SR),
        ("Bengal gram, whole", IFCT),
    ]
    aliases = ["", _aliases("chickpeas", "chana")]
    order = by_meaning(foods, "cooked chickpeas", food="cooked chickpeas", aliases=aliases)
    assert order[0] == 0


@pytest.mark.django_db
def test_the_analysis_finds_a_food_by_its_common_name_below_the_searchs_first_foods():
    FoodFactory(name="Squash, spaghetti, peeled, seeded, raw", data_type=DataType.FOUNDATION,
                portions=[{"description": "1 cup", "gram_weight": 101.0}])  # fmt: skip
    FoodFactory(name="Spaghetti sauce", data_type=DataType.SURVEY)
    pasta = FoodFactory(
        name="Pasta, dry, enriched",
        local_names={COMMON_NAME: ["macaroni product", "spaghetti"]},
        search_aliases=_aliases("macaroni product", "spaghetti"),
        portions=[{"description": "1 cup spaghetti", "gram_weight": 91.0}],
    )
    line = analysis_run(lines=["8 oz spaghetti"], market="US").lines[0]
    assert line["food"]["id"] == pasta.public_id
    assert line["grams"] == pytest.approx(226.8, abs=0.1)


@pytest.mark.django_db
def test_food_ids_named_compares_whole_names_on_stems():
    frank = FoodFactory(
        name="Frankfurter, beef, unheated", search_aliases=_aliases("hot dog", "frank", "wiener")
    )
    FoodFactory(name="Rolls, hot dog or hamburger", search_aliases=_aliases("hot dog bun"))
    FoodFactory(name="HOT DOG", data_type=DataType.BRANDED, search_aliases=_aliases("hot dog"))
    assert food_ids_named(name="hot dogs", market="US", data_types=REFERENCE, limit=5) == [frank.id]
    assert food_ids_named(name="dog", market="US", data_types=REFERENCE, limit=5) == []
    assert food_ids_named(name="", market="US", data_types=REFERENCE, limit=5) == []
