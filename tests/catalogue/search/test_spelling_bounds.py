"""Issue 24.1: the search text is bounded as searched (after normalisation), and the typo
fallback (catalogue.search.spelling) bounds its own work whatever the input: word length,
one-edit candidates per word, and a time budget read from an injected clock."""

from __future__ import annotations

import string

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.search import spelling
from catalogue.search.params import MAX_Q_LENGTH, parse_food_query
from core.problems import InvalidParameter
from tests.factories import FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db

SQUARE_KM = "\u3316"  # NFKD: six letters ("キロメートル")


def test_q_that_normalises_past_the_limit_is_a_400(sr28_small, paid):
    response = paid.get("/v1/foods", {"q": SQUARE_KM * 200})
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["type"] == "/problems/invalid-parameter"
    assert body["errors"][0]["parameter"] == "q"
    assert "normalised" in body["errors"][0]["detail"]


def test_q_at_the_limit_once_normalised_is_searched(sr28_small, paid):
    fits = SQUARE_KM * (MAX_Q_LENGTH // 6)  # 198 letters
    assert paid.get("/v1/foods", {"q": fits}).status_code == 200
    with pytest.raises(InvalidParameter):
        parse_food_query({"q": [fits + SQUARE_KM]})  # 204 letters, 34 characters typed


def test_a_word_longer_than_the_bound_is_not_corrected_nor_looked_up(db):
    long_word = "q" * (spelling.MAX_WORD_LENGTH + 1)
    with CaptureQueriesContext(connection) as long_one:
        assert spelling.correct(long_word) is None
    with CaptureQueriesContext(connection) as short_one:
        spelling.correct("qqqqqq")
    # Only the vocabulary count of the query's words: no candidates, no one-edit set.
    assert len(long_one) < len(short_one)
    assert spelling.split(long_word, minimum=1) is None


def test_one_edit_candidates_of_the_longest_word_fit_the_bound():
    worst = (string.ascii_lowercase * 2)[: spelling.MAX_WORD_LENGTH]
    assert len(spelling.one_edit(worst)) <= spelling.MAX_EDIT_CANDIDATES


@pytest.fixture
def two_typos(db: None) -> None:
    market = MarketFactory(code="US")
    for n in range(spelling.MORE_COMMON + 1):
        FoodFactory(name=f"Cheese, mozzarella, part {n}", market=market)
        FoodFactory(name=f"Broccoli, raw, part {n}", market=market)


def test_words_not_reached_within_the_budget_are_kept(two_typos):
    assert spelling.correct("mozarella brocoli") == "mozzarella broccoli"
    ticks = iter([0.0, 0.0, spelling.BUDGET_SECONDS])  # start, first word, second word
    assert spelling.correct("mozarella brocoli", clock=lambda: next(ticks)) == (
        "mozzarella brocoli"
    )
