"""Issue 27, point 5: GET /v1/suggest, suggestions as you type (catalogue/search/suggest.py), on
real SR28 + FDC rows (the judged sample) and the vendored IFCT table; both backends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from catalogue.importers.load import catalogue_load
from catalogue.search import suggest
from tests.catalogue.conftest import DATA
from tests.factories import FoodFactory
from tests.support.clients import client_of
from tests.support.shared_rows import shared_rows

pytestmark = pytest.mark.django_db


def load_judged() -> None:
    catalogue_load(source="fdc", path=DATA / "judged" / "fdc" / "fooddata.csv")
    catalogue_load(source="sr28", path=DATA / "judged" / "sr28")


@pytest.fixture(scope="module")
def judged(django_db_setup: None, django_db_blocker) -> Iterator[None]:
    """The judged sample, loaded once for the module (every test here reads it;
    tests/support/shared_rows.py)."""
    yield from shared_rows(django_db_blocker, load_judged)


def texts(client, q: str) -> list[str]:  # type: ignore[no-untyped-def]
    response = client.get("/v1/suggest", {"q": q})
    assert response.status_code == 200, response.content
    return [item["text"] for item in response.json()["data"]]


def test_the_typical_completion_comes_first(judged, taster):
    found = texts(taster, "chick")
    assert found[0] == "chicken" and "chickpeas" in found
    assert len(found) <= suggest.LIMIT


def test_a_completion_follows_the_word_before_it(judged, taster):
    found = texts(taster, "peanut b")
    assert found[0] == "peanut butter"
    assert all(text.startswith("peanut b") for text in found)


def test_each_suggestion_links_to_its_search(judged, taster):
    item = taster.get("/v1/suggest", {"q": "banan"}).json()["data"][0]
    assert item == {"text": "banana", "links": {"foods": "/v1/foods?q=banana"}}


def test_suggestions_are_scoped_to_the_taster_s_market(judged):
    catalogue_load(source="ifct")
    assert "palak" in texts(client_of("IN"), "pala")  # a local name of market IN
    assert "palak" not in texts(client_of("US"), "pala")
    assert "chickpeas" not in texts(client_of("IN"), "chick")  # IFCT: "Bengal gram"


def test_suggest_is_metered_like_any_read(judged, taster):
    before = int(taster.get("/v1/suggest", {"q": "app"})["RateLimit-Remaining"])
    response = taster.get("/v1/suggest", {"q": "appl"})
    assert int(response["RateLimit-Remaining"]) == before - 1


def test_a_taster_without_a_market_is_told_to_choose_one(judged, taster_no_market):
    response = taster_no_market.get("/v1/suggest", {"q": "app"})
    assert 400 <= response.status_code < 500
    assert response.json()["type"].endswith("market-not-selected")


@pytest.mark.parametrize(
    "q",
    ["", " ", "%", "_", "\\", "'", "a", "é", "日本", "chick%", "a_b", "x" * 200,
     "peanut " * 28, "1 2 3 4 5 6 7 8", "--", "peanut %"],
)  # fmt: skip
def test_any_input_is_answered_never_a_server_error(judged, taster, q):
    response = taster.get("/v1/suggest", {"q": q})
    assert response.status_code == 200
    assert len(response.json()["data"]) <= suggest.LIMIT


def test_a_q_over_200_characters_is_a_400(judged, taster):
    response = taster.get("/v1/suggest", {"q": "x" * 201})
    assert response.status_code == 400
    assert response.json()["errors"][0]["parameter"] == "q"


def test_a_completion_ranks_by_the_foods_about_it_in_every_kind_and_no_other(db):
    # "quenepa" has three foods *about* it, one of each other kind (a reference dish, a
    # branded food, a branded dish); "quandong" two reference foods about it and five
    # foods that only hold it. Every kind of "about" counts, holding does not: a count
    # of the reference foods alone, or of every food holding the word, puts quandong
    # first.
    FoodFactory(name="Quandong, raw", data_type="sr_legacy")
    FoodFactory(name="Quandong, dried", data_type="sr_legacy")
    for n in range(5):
        FoodFactory(name=f"Jam {n}, quandong", data_type="sr_legacy")
    FoodFactory(name="Quenepa, candied", data_type="sr_legacy")
    FoodFactory(name="QUENEPA", data_type="branded", source="fdc")
    FoodFactory(name="QUENEPA, CANDIED", data_type="branded", source="fdc")
    # (Other "qu" words may be there too: the judged sample stays loaded for the module.)
    found = [s.text for s in suggest.food_suggest(q="qu", market="US")]
    assert found.index("quenepa") < found.index("quandong"), found
