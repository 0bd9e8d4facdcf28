"""Issue 27: the typical food first, synonyms and regional names, market-scoped spelling
and local names, on real SR28, FDC and IFCT rows (the judged sample, the vendored IFCT
table) and factory rows with real names; both backends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection

from catalogue.importers.load import catalogue_load
from catalogue.models import Food
from catalogue.search import spelling, synonyms
from tests.catalogue.conftest import DATA
from tests.factories import FoodFactory
from tests.support.clients import client_of
from tests.support.shared_rows import shared_rows

pytestmark = pytest.mark.django_db


def load_judged() -> None:
    catalogue_load(source="fdc", path=DATA / "judged" / "fdc" / "fooddata.csv")
    catalogue_load(source="sr28", path=DATA / "judged" / "sr28")


def load_ifct() -> None:
    catalogue_load(source="ifct")  # the whole vendored table (541 foods)


@pytest.fixture
def ifct(db: None) -> None:
    load_ifct()


# Loaded once per class (tests/support/shared_rows.py): only the classes below use them.
@pytest.fixture(scope="class")
def judged_once(django_db_setup: None, django_db_blocker) -> Iterator[None]:
    yield from shared_rows(django_db_blocker, load_judged)


@pytest.fixture(scope="class")
def judged_and_ifct_once(django_db_setup: None, django_db_blocker) -> Iterator[None]:
    yield from shared_rows(django_db_blocker, lambda: (load_ifct(), load_judged()))


def search(client, q: str):  # type: ignore[no-untyped-def]
    response = client.get("/v1/foods", {"q": q})
    assert response.status_code == 200, response.content
    return response.json()


def first(client, q: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    row = search(client, q)["data"][0]
    return row["name"], row["data_type"]


# --- 1. Typicality ----------------------------------------------------------------


def test_the_food_itself_comes_before_a_dish_named_after_it(db, taster):
    FoodFactory(name="Zucchini, pickled", data_type="survey")
    FoodFactory(name="Squash, summer, zucchini, includes skin, raw")
    FoodFactory(name="Rice, fried, NFS", data_type="survey")
    FoodFactory(name="Rice, white, cooked, NFS", data_type="survey")
    assert first(taster, "zucchini")[0] == "Squash, summer, zucchini, includes skin, raw"
    assert first(taster, "rice")[0] == "Rice, white, cooked, NFS"
    # A query naming the dish finds the dish first.
    assert first(taster, "pickled zucchini")[0] == "Zucchini, pickled"


def test_a_reference_food_holding_the_query_beats_a_label_equal_to_it(db, taster):
    FoodFactory(name="COLA", data_type="branded", source="fdc")
    FoodFactory(name="Beverages, carbonated, cola, regular")
    assert [name for name, _ in [first(taster, "cola")]] == ["Beverages, carbonated, cola, regular"]
    names = [row["name"] for row in search(taster, "cola")["data"]]
    assert names == ["Beverages, carbonated, cola, regular", "COLA"]


class TestOnTheJudgedSample:
    """Typicality and synonyms on the judged sample, loaded once for the class."""

    def test_three_words_in_any_order_are_about_the_name(self, judged_once, taster):
        name, data_type = first(taster, "chocolate ice cream")
        assert name.lower().startswith("ice cream") and "chocolate" in name.lower()
        assert data_type != "branded"
        name, data_type = first(taster, "extra virgin olive oil")
        assert name.lower().startswith("oil, olive") and data_type != "branded"

    def test_a_synonym_is_searched_ranked_as_the_word_and_reported(self, judged_once, taster):
        body = search(taster, "aubergine")
        assert body["meta"]["synonyms"] == [{"typed": "aubergine", "searched": "eggplant"}]
        assert body["meta"]["q"] == "aubergine"
        assert [r["id"] for r in body["data"]] == [
            r["id"] for r in search(taster, "eggplant")["data"]
        ]
        assert body["data"][0]["name"].lower().startswith("eggplant")
        assert search(taster, "eggplant")["meta"]["synonyms"] == []


# --- 2. Synonyms ------------------------------------------------------------------


def test_the_synonym_table_is_read_with_stems_longest_phrase_first():
    assert synonyms.rewrite("Aubergines", "US") == (
        "eggplant",
        (synonyms.Used(typed="aubergines", searched="eggplant"),),
    )
    assert synonyms.rewrite("beef mince", "US")[0] == "ground beef"
    assert synonyms.rewrite("mince pie", "US") == ("mince pie", ())  # only the phrases listed
    assert synonyms.rewrite("eggplant", "IN")[0] == "brinjal"
    assert synonyms.rewrite("eggplant", "US") == ("eggplant", ())
    assert synonyms.rewrite("", "US") == ("", ())


def test_every_line_of_the_table_is_well_formed():
    table = synonyms.table()
    assert set(table) <= {"US", "IN"} and len(table["US"]) >= 40
    for market, rows in table.items():
        for typed, searched in rows.items():
            assert typed and searched and " ".join(typed) != searched, (market, typed)


# --- 3. Markets and local names -----------------------------------------------------


class TestOnTheJudgedSampleAndIfct:
    """Synonyms, local names and spelling per market on the judged sample and the
    vendored IFCT table, loaded once for the class."""

    def test_synonyms_follow_the_market(self, judged_and_ifct_once):
        taster_in = client_of("IN")
        body = search(taster_in, "eggplant")
        assert body["meta"]["synonyms"] == [{"typed": "eggplant", "searched": "brinjal"}]
        assert body["data"][0]["name"].startswith("Brinjal")

    @pytest.mark.parametrize(
        ("q", "meant"),
        [("palak", "Spinach"), ("doodh", "Milk, whole"), ("karela", "Bitter gourd"),
         ("aloo", "Potato")],
    )  # fmt: skip
    def test_local_names_are_found_in_their_market_not_corrected_away(
        self, judged_and_ifct_once, q, meant
    ):
        body = search(client_of("IN"), q)
        assert body["meta"]["corrected_q"] is None
        assert body["data"][0]["name"].startswith(meant), [r["name"] for r in body["data"][:3]]

    @pytest.mark.parametrize(
        ("q", "meant"),
        [("mango", "Mango, ripe, "), ("papaya", "Papaya, ripe"), ("jack fruit", "Jack fruit, ripe"),
         ("tomato", "Tomato, ripe, "), ("rice", "Rice, raw, "), ("raw mango", "Mango, green, raw")],
    )  # fmt: skip
    def test_the_ifct_s_ripe_fruit_comes_before_the_unripe_one_it_calls_raw(
        self, judged_and_ifct_once, q, meant
    ):
        names = [row["name"] for row in search(client_of("IN"), q)["data"][:3]]
        assert names[0].startswith(meant), names

    def test_the_spelling_vocabulary_is_per_market(self, judged_and_ifct_once):
        assert spelling.correct("palak", "IN") is None  # a local name of market IN
        assert spelling.correct("palak", "US") != "palak"
        assert spelling.correct("spinnach", "IN") == "spinach"


# --- 4. Corrections -----------------------------------------------------------------


def test_a_word_only_labels_hold_does_not_block_a_staple(db, taster):
    FoodFactory(name="CAULIFLOUR PIZZA CRUST", data_type="branded", source="fdc")
    for n in range(12):
        FoodFactory(name=f"Cauliflower, raw {n}")
    assert spelling.correct("cauliflour", "US") == "cauliflower"
    assert search(taster, "cauliflour")["meta"]["corrected_q"] == "cauliflower"


def test_a_candidate_with_the_first_letter_typed_beats_one_edit_fewer(db):
    FoodFactory(name="Game meat, antelope, raw")
    FoodFactory(name="Melons, cantaloupe, raw")
    assert spelling.correct("cantelope", "US") == "cantaloupe"


def test_a_longer_word_than_any_food_word_is_never_corrected(db):
    FoodFactory(name="Bananas, raw")
    assert spelling.correct("b" + "anana" * 10, "US") is None


def test_the_vocabulary_is_kept_per_market_with_local_names_by_triggers(ifct):
    if connection.vendor != "postgresql":
        pytest.skip("catalogue_word is PostgreSQL's (SQLite counts the names in Python)")

    def held(market: str, word: str) -> tuple[int, int] | None:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT foods, reference FROM catalogue_word WHERE market_id = %s AND word = %s",
                (market, word),
            )
            return cursor.fetchone()

    assert held("IN", "palak")[1] >= 1  # a local name (Hindi) of spinach, market IN
    assert held("US", "palak") is None
    before = held("IN", "spinach")[0]
    FoodFactory(name="SPINACH DIP", data_type="branded", source="fdc", market__code="IN")
    assert held("IN", "spinach") == (before + 1, before)  # branded: not a reference food
    Food.objects.filter(name="SPINACH DIP").delete()
    assert held("IN", "spinach") == (before, before)
