"""``catalogue.search.selectors.food_top_ids``: the first foods of ``food_search``'s relevance
order, read without counting or summaries (what POST /v1/analysis searches with)."""

from __future__ import annotations

import pytest

from catalogue.search.paging import Position
from catalogue.search.params import FoodQuery, Sort
from catalogue.search.selectors import food_search, food_top_ids
from tests.factories import FoodFactory, MarketFactory


@pytest.mark.parametrize("q", ["butter", "peanut butter", "cheese cheddar", "butter salt", "egg"])
@pytest.mark.parametrize("market", [None, "US"])
def test_top_ids_are_the_first_page_of_the_search(sr28_small, q, market):
    query = FoodQuery(q=q, sort=Sort("relevance", False), page_size=5)
    page = food_search(query=query, market=market, depth=None, position=Position(0))
    assert food_top_ids(q=q, market=market, limit=5) == [row["id"] for row in page.rows]


def test_a_misspelt_query_is_corrected_when_it_matches_nothing(sr28_small):
    assert food_top_ids(q="buttre", market=None, limit=3) == food_top_ids(
        q="butter", market=None, limit=3
    )


def test_another_markets_foods_are_never_returned(sr28_small):
    assert food_top_ids(q="butter", market="IN", limit=5) == []


def test_the_markets_synonyms_are_searched(db):
    eggplant = FoodFactory(name="Eggplant, raw", market=MarketFactory(code="US"))
    FoodFactory(name="Aubergine chutney", data_type="branded", source="fdc", market=eggplant.market)
    assert food_top_ids(q="aubergine", market="US", limit=5)[0] == eggplant.pk


def test_a_misspelling_is_corrected_in_the_searched_markets_words(db):
    """Among every market's words "karla" is "kara" (three foods), which no food of
    market IN holds; among IN's it is "karela"."""
    us, india = MarketFactory(code="US"), MarketFactory(code="IN")
    for _ in range(3):
        FoodFactory(name="Kara, coconut cream", data_type="survey", market=us)
    karela = FoodFactory(name="Karela, raw", source="ifct", market=india)
    assert food_top_ids(q="karla", market="IN", limit=5) == [karela.pk]
