"""As bought or as eaten (issue 39.4): catalogue/analysis/eaten.py's rule over the words of
USDA names, as table tests (pure): which candidate a plate's line means."""

from __future__ import annotations

import pytest

from catalogue.analysis.eaten import (
    bought,
    bought_first,
    cooked,
    eaten_first,
    eaten_form,
    eaten_raw,
    fat_added,
    states_asked,
    wants_cooked,
)

SR, SURVEY, BRANDED = "sr_legacy", "survey", "branded"


def _first(foods: list[tuple[str, str]], asked: str) -> str:
    return foods[eaten_first(foods, asked)[0]][0]


@pytest.mark.parametrize(
    ("name", "is_cooked", "is_bought"),
    [
        ("Rice, brown, long-grain, cooked", True, False),
        ("Rice, brown, long-grain, raw", False, True),
        ("Pork, cured, bacon, cooked, pan-fried", True, False),
        ("Pork, cured, bacon, unprepared", False, True),
        ("Noodles, egg, dry, enriched", False, True),
        ("Quinoa, uncooked", False, True),
        ("Chicken, broilers or fryers, breast, meat only, cooked, roasted", True, False),
        ("Rice, white, long-grain, precooked or instant, enriched, prepared", True, False),
        # SR28's cooked apple is made from the raw one: not a cooked form
        ("Apples, raw, without skin, cooked, boiled", False, True),
        # "dry heat" is a cooking method, not the dry state
        ("Fish, salmon, Atlantic, farmed, cooked, dry heat", True, False),
        # fried alone is another dish
        ("Beef, steak, country fried", False, False),
        ("Butter, salted", False, False),
        # "prepared with" names what a food is made with (tofu's coagulant)
        ("Tofu, hard, prepared with nigari", False, False),
        ("Tofu, raw, firm, prepared with calcium sulfate", False, True),
    ],
)
def test_a_name_states_its_state(name, is_cooked, is_bought):
    assert (cooked(name), bought(name)) == (is_cooked, is_bought)


@pytest.mark.parametrize(
    ("asked", "stated"),
    [
        ("brown rice", False),
        ("raw brown rice", True),
        ("dry pasta", True),
        ("uncooked quinoa", True),
        ("boiled eggs", True),
        ("fried chicken", True),
        ("chicken breast", False),
    ],
)
def test_a_line_stating_a_state_is_read_as_it_says(asked, stated):
    assert states_asked(asked) is stated


RICE = [
    ("Rice, brown, long-grain, raw", SR),
    ("Rice, brown, medium-grain, raw", SR),
    ("Rice, brown, long-grain, cooked", SR),
    ("Rice, brown, cooked, NS as to fat", SURVEY),
]
APPLE = [
    ("Apple, raw", SURVEY),
    ("Apples, raw, with skin", SR),
    ("Apple, baked", SURVEY),
    ("Apples, raw, without skin, cooked, boiled", SR),
]


@pytest.mark.parametrize(
    ("foods", "asked", "expected"),
    [
        (RICE, "brown rice", "Rice, brown, long-grain, cooked"),
        (RICE, "raw brown rice", "Rice, brown, long-grain, raw"),  # the line says so
        (
            [("Quinoa, uncooked", SR), ("Quinoa, cooked", SR)],
            "quinoa",
            "Quinoa, cooked",
        ),
        (
            [("Millet, raw", SR), ("Millet", SURVEY), ("Millet, cooked", SR)],
            "millet",
            "Millet, cooked",
        ),
        (
            [
                ("Lentils, raw", SR),
                ("Lentils, NFS", SURVEY),
                ("Lentils, mature seeds, cooked, boiled, without salt", SR),
            ],
            "lentils",
            "Lentils, mature seeds, cooked, boiled, without salt",
        ),
        (
            [
                ("Chicken, breast, boneless, skinless, raw", "foundation"),
                ("Chicken, broilers or fryers, breast, meat only, cooked, roasted", SR),
            ],
            "chicken breast",
            "Chicken, broilers or fryers, breast, meat only, cooked, roasted",
        ),
        (
            [("Pork, cured, bacon, unprepared", SR), ("Pork, cured, bacon, cooked, baked", SR)],
            "bacon",
            "Pork, cured, bacon, cooked, baked",
        ),
        # FNDDS's steak is as eaten: a steak named where USDA names its food stays first
        (
            [
                ("Beef, steak, NFS", SURVEY),
                ("Pork, fresh, shoulder, blade, boston (steaks), cooked, broiled", SR),
            ],
            "steak",
            "Beef, steak, NFS",
        ),
        # eaten raw: FNDDS's plainest apple is raw; SR28's cooked one is made from raw
        (APPLE, "apple", "Apple, raw"),
        # no cooked form at all, and a dish made with the food is not one
        (
            [("Milk, whole", SURVEY), ("Rice, cooked, with milk", SURVEY)],
            "milk",
            "Milk, whole",
        ),
        (
            [("Butter, salted", SR), ("Plantain, cooked with butter or margarine", SURVEY)],
            "butter",
            "Butter, salted",
        ),
        # a branded food never comes before a reference one for being cooked
        (
            [("Pasta, dry, enriched", SR), ("COOKED PASTA", BRANDED)],
            "pasta",
            "Pasta, dry, enriched",
        ),
    ],
)  # fmt: skip
def test_a_plate_means_the_food_as_eaten(foods, asked, expected):
    assert _first(foods, asked) == expected


def test_the_others_keep_their_order_after_the_cooked_forms():
    order = eaten_first(RICE, "brown rice")
    assert [RICE[i][0] for i in order] == [
        "Rice, brown, long-grain, cooked",
        "Rice, brown, cooked, NS as to fat",
        "Rice, brown, long-grain, raw",
        "Rice, brown, medium-grain, raw",
    ]


def test_eaten_raw_reads_fnddss_plainest_record():
    assert eaten_raw(APPLE, "apple")
    assert not eaten_raw([("Beef, ground", SURVEY), ("Beef, ground, raw", SURVEY)], "ground beef")
    assert not eaten_raw(RICE[:3], "brown rice")  # no survey record: never raw


def test_a_survey_record_stating_no_state_is_as_eaten():
    assert eaten_form("Beef, steak, NFS", SURVEY)
    assert not eaten_form("Butter, salted", SR)
    assert not eaten_form("Apple, raw", SURVEY)


def test_more_candidates_are_wanted_only_when_no_cooked_form_is_near():
    raw_only = [("Rice, brown, long-grain, raw", SR), ("Rice, brown, medium-grain, raw", SR)]
    assert wants_cooked(raw_only, "brown rice")
    assert not wants_cooked(RICE, "brown rice")  # one is there
    assert not wants_cooked(raw_only, "raw brown rice")  # the line says raw
    assert not wants_cooked(APPLE[:2], "apple")  # eaten raw
    assert not wants_cooked([], "brown rice")


@pytest.mark.parametrize(
    ("foods", "asked", "expected"),
    [
        # FNDDS's fat cooked in, or skin eaten, is not what a plain plate line means
        (
            [("Green peas, fresh, cooked with oil", SURVEY),
             ("Green peas, fresh, cooked, no added fat", SURVEY), ("Peas, green, raw", SR)],
            "peas",
            "Green peas, fresh, cooked, no added fat",
        ),
        (
            [("Sweet potato, baked, fat added", SURVEY),
             ("Sweet potato, baked, NS as to fat", SURVEY),
             ("Sweet potato, baked, no added fat", SURVEY)],
            "sweet potato",
            "Sweet potato, baked, no added fat",  # FNDDS's unstated fat is fat added
        ),
    ],
)  # fmt: skip
def test_a_plate_means_the_food_without_fat_added(foods, asked, expected):
    assert _first(foods, asked) == expected


def test_fat_added_is_read_from_fnddss_words():
    assert fat_added("Green peas, fresh, cooked with oil", "peas")
    assert fat_added("Chicken thigh, stewed, skin eaten", "chicken thigh")
    assert not fat_added("Chicken thigh, stewed, skin not eaten", "chicken thigh")
    assert not fat_added("Green peas, fresh, cooked, no added fat", "peas")
    # FNDDS's "NS as to fat" takes fat as added; "NS as to fat eaten" is a meat's own fat
    assert fat_added("Sweet potato, baked, NS as to fat", "sweet potato")
    assert not fat_added("Beef, steak, sirloin, NS as to fat eaten", "sirloin steak")
    # FNDDS cooks these methods with fat unless it says not; SR28's are the food alone
    assert fat_added("Fish, cod, grilled", "cod", "survey")
    assert not fat_added("Fish, cod, steamed", "cod", "survey")
    assert not fat_added("Fish, cod, Atlantic, cooked, dry heat", "cod", "sr_legacy")
    assert not fat_added("Turkey, whole, meat only, cooked, roasted", "turkey", "sr_legacy")
    assert not fat_added("Broccoli, baked, no added fat", "broccoli", "survey")
    assert not fat_added("Fish, salmon, grilled", "grilled salmon", "survey")  # asked
    # unless the line asks for it
    assert not fat_added("Potato, fried, fat added", "fried potato")
    assert not fat_added("Chicken thigh, stewed, skin eaten", "chicken thigh with skin")


SR28_RAW_TENDERLOIN = "Pork, fresh, loin, tenderloin, separable lean only, raw"


@pytest.mark.parametrize(
    ("foods", "asked", "expected"),
    [
        # FNDDS names foods as eaten: a recipe's pound of tenderloin is bought raw
        (
            [("Pork, tenderloin", SURVEY), (SR28_RAW_TENDERLOIN, SR)],
            "pork tenderloin",
            SR28_RAW_TENDERLOIN,
        ),
        (
            [("Italian sausage", SURVEY), ("Sausage, Italian, pork, raw", SR)],
            "italian sausage",
            "Sausage, Italian, pork, raw",
        ),
        # the line states a state: read as it says
        (
            [("Pork, tenderloin", SURVEY), (SR28_RAW_TENDERLOIN, SR)],
            "cooked pork tenderloin",
            "Pork, tenderloin",
        ),
        # another food of the word ("Mustard greens"), a part named only in parentheses
        # ("leg (ham)"), a raw form one word further ("tenderloin steak"), and a powder
        # ("Milk, dry" is not a raw milk) are not the food as bought
        ([("Mustard", SURVEY), ("Mustard greens, raw", SR)], "mustard", "Mustard"),
        (
            [("Ham", SURVEY), ("Pork, fresh, leg (ham), whole, separable lean only, raw", SR)],
            "ham",
            "Ham",
        ),
        (
            [("Beef, steak, NFS", SURVEY), ("Beef, tenderloin steak, raw", "foundation")],
            "steak",
            "Beef, steak, NFS",
        ),
        ([("Milk, whole", SURVEY), ("Milk, dry, whole", SR)], "milk", "Milk, whole"),
        # the best food is a reference food, or a survey record stating a state: unchanged
        (
            [("Barley, pearled, cooked", SR), ("Barley, pearled, raw", SR)],
            "barley",
            "Barley, pearled, cooked",
        ),
        ([("Apple, raw", SURVEY), ("Apples, raw, with skin", SR)], "apple", "Apple, raw"),
    ],
)
def test_a_recipe_means_the_food_as_bought(foods, asked, expected):
    assert foods[bought_first(foods, asked)[0]][0] == expected


def test_bought_first_keeps_the_others_in_their_order():
    foods = [
        ("Pork, tenderloin", SURVEY),
        ("Pork, tenderloin, NFS", SURVEY),
        (SR28_RAW_TENDERLOIN, SR),
    ]
    assert bought_first(foods, "pork tenderloin") == [2, 0, 1]


def test_a_plate_does_not_mean_a_form_the_food_was_bought_in():
    foods = [
        ("Beef, ground, patties, frozen, cooked, broiled", SR),
        ("Beef, ground", SURVEY),
        ("Beef, ground, raw", SURVEY),
    ]
    assert _first(foods, "ground beef") == "Beef, ground"
    assert _first(foods, "frozen ground beef") == "Beef, ground, patties, frozen, cooked, broiled"


def test_a_plates_fish_is_the_one_cooked_without_the_surveys_default_fat():
    foods = [
        ("Fish, cod, grilled", SURVEY),
        ("Fish, cod, steamed", SURVEY),
        ("Fish, cod, Atlantic, raw", SR),
    ]
    assert _first(foods, "cod") == "Fish, cod, steamed"
