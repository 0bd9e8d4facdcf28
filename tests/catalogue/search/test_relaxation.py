"""Never an empty page for a query a food could answer (issue 39, point 1): a search no
food holds whole is searched with fewer of its words, down to one, and says so in
``meta.relaxed`` (catalogue.search.matching.widened; docs/catalogue.md, "Relevance"). On
both backends (the suite's database), and as a pure rule with its cost bound."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from catalogue.search import matching
from tests.factories import FoodFactory

pytestmark = pytest.mark.django_db


def search(client, q: str, **params: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    response = client.get("/v1/foods", {"q": q, **params})
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def sandwiches(db: None, unhurried: None) -> None:
    FoodFactory(name="Peanut butter and jelly sandwich, NFS", data_type="survey")
    FoodFactory(name="Peanut butter and jelly", data_type="survey")
    FoodFactory(name="Peanut butter, smooth style, without salt", data_type="sr_legacy")
    FoodFactory(name="Jellies", data_type="sr_legacy")
    FoodFactory(name="PEANUT BUTTER & GRAPE JELLY", data_type="branded", source="fdc")
    FoodFactory(name="Bread, white, toasted", data_type="sr_legacy")


def test_a_query_no_food_holds_whole_drops_its_extra_word(sandwiches, taster):
    body = search(taster, "peanut butter and jelly toast")
    assert body["meta"]["relaxed"] == {
        "dropped": ["toast"],
        "searched": "peanut butter and jelly",
    }
    assert body["meta"]["corrected_q"] == "peanut butter and jelly"
    assert body["meta"]["q"] == "peanut butter and jelly toast"
    assert body["data"][0]["name"] == "Peanut butter and jelly"
    assert body["meta"]["total"] == 3


def test_a_query_a_food_holds_whole_is_not_relaxed(sandwiches, taster):
    body = search(taster, "peanut butter and jelly sandwich")
    assert body["meta"]["relaxed"] is None and body["meta"]["corrected_q"] is None
    assert body["data"][0]["name"] == "Peanut butter and jelly sandwich, NFS"


def test_words_no_name_holds_are_dropped_first_down_to_one_word(sandwiches, taster):
    body = search(taster, "xqzzv jellies wibblewobble")
    assert body["meta"]["relaxed"] == {"dropped": ["xqzzv", "wibblewobble"], "searched": "jellies"}
    assert body["data"][0]["name"] == "Jellies"
    # Two words that never meet in one name: the one foods are about is kept.
    body = search(taster, "jellies toasted")
    assert body["meta"]["relaxed"]["searched"] in ("jellies", "toasted")
    assert body["data"]


def test_a_query_of_unknown_words_only_stays_empty(sandwiches, taster):
    body = search(taster, "xqzzv wibblewobble")
    assert body["data"] == [] and body["meta"]["relaxed"] is None


def test_pages_and_other_sorts_of_a_relaxed_search_agree(sandwiches, taster):
    second = search(taster, "peanut butter and jelly toast", page_size=1, page=2)
    assert second["meta"]["relaxed"]["searched"] == "peanut butter and jelly"
    assert second["data"][0]["name"] == "Peanut butter and jelly sandwich, NFS"
    by_name = search(taster, "peanut butter and jelly toast", sort="name")
    assert by_name["meta"]["relaxed"]["dropped"] == ["toast"]
    assert by_name["meta"]["total"] == 3


def test_a_filtered_search_relaxes_within_its_filters(sandwiches, taster):
    body = search(taster, "peanut butter and jelly toast", data_type="branded")
    assert body["meta"]["relaxed"]["searched"] == "peanut butter and jelly"
    assert [row["name"] for row in body["data"]] == ["PEANUT BUTTER & GRAPE JELLY"]


def test_every_search_reports_relaxed(sandwiches, taster):
    assert search(taster, "jellies")["meta"]["relaxed"] is None
    assert search(taster, "xqzzv")["meta"]["relaxed"] is None  # one word: nothing to drop


# --- The rule, without a database -----------------------------------------------------


def widen(q: str, tops: dict[str, dict[str, int]], **kwargs: Any) -> tuple[str | None, list[str]]:
    """``matching.widened`` over a fixed table of first results; and what it searched."""
    tried: list[str] = []

    def top(candidate: str) -> dict[str, int] | None:
        tried.append(candidate)
        return tops.get(candidate)

    held = kwargs.pop("held", {})
    about = kwargs.pop("about", {})
    found = kwargs.pop("found", None) or (lambda terms: set(terms))
    result = matching.widened(
        q,
        top,
        # The vocabulary holds the words some name matches (held: how many foods).
        lambda terms: {t: held.get(t, 1) if t in found([t]) else 0 for t in terms},
        lambda terms: {t: about.get(t, 0) for t in terms},
        found,
        **kwargs,
    )
    return result, tried


STRONG = {"relevance": 13, "quality": 2, "name_length": 20}
WEAK = {"relevance": 5, "quality": 42, "name_length": 20}


def test_the_fewest_words_are_dropped_and_the_best_first_food_wins():
    tops = {"egg rice": WEAK, "fried rice": STRONG, "egg fried": STRONG, "rice": STRONG}
    about = {"egg": 85, "rice": 81}
    # rice, the last word foods are about, names the food: "egg fried" is never tried.
    assert widen("egg fried rice", tops, about=about) == ("fried rice", ["egg rice", "fried rice"])
    # Equal first foods: the commonest word is left out.
    tops["egg rice"] = STRONG
    held = {"egg": 2000, "fried": 1000, "rice": 6000}
    assert widen("egg fried rice", tops, about=about, held=held)[0] == "fried rice"
    held["fried"] = 3000
    assert widen("egg fried rice", tops, about=about, held=held)[0] == "egg rice"


def test_a_word_after_with_does_not_name_the_food():
    tops = {"eggs": STRONG, "milk": STRONG}
    assert widen("eggs with milk", tops, about={"eggs": 50, "milk": 100})[0] == "eggs"


def test_fewer_than_two_words_or_no_known_word_is_not_widened():
    assert widen("rice", {"rice": STRONG}) == (None, [])
    assert widen("the rice", {"rice": STRONG}) == (None, [])
    assert widen("xq zv", {}, found=lambda terms: set()) == (None, [])


def test_unknown_words_are_left_out_before_any_search():
    result, tried = widen(
        "peanut xqzzv butter", {"peanut butter": STRONG}, found=lambda t: {"peanut", "butter"}
    )
    assert (result, tried) == ("peanut butter", ["peanut butter"])


def test_a_long_query_weighs_a_few_words_and_tries_a_few_queries_of_each_size():
    words = [f"ww{i}" for i in range(matching.WIDEN_MAX_TYPED)]
    named = words[-1]
    held = {w: i for i, w in enumerate(words)}
    result, tried = widen(" ".join(words), {}, held=held, about={named: 5})
    assert result is None  # nothing found: every size tried
    assert len(tried) <= matching.WIDEN_TRIES * matching.WIDEN_MAX_WORDS
    assert all(named in candidate for candidate in tried)
    assert {w for candidate in tried for w in candidate.split()} <= {*words[:5], named}


def test_a_query_of_many_words_is_not_widened_and_short_words_are_never_kept():
    # More distinct words than any food is named by: not widened (50 unknown words
    # cost 13x an ordinary search).
    words = " ".join(f"ww{i}" for i in range(matching.WIDEN_MAX_TYPED + 1))
    assert widen(words, {"ww0": STRONG}) == (None, [])
    # Words of one or two letters are left out before anything is searched.
    result, tried = widen("xq rice", {"rice": STRONG, "xq rice": STRONG})
    assert result == "rice" and all("xq" not in candidate for candidate in tried)


def test_out_of_time_the_named_word_alone_is_searched():
    clock = itertools.count(0.0, matching.WIDEN_BUDGET_SECONDS)
    tops = {"rice": STRONG}
    result, tried = widen("egg fried rice", tops, about={"rice": 9}, clock=lambda: next(clock))
    assert result == "rice" and len(tried) <= 2
