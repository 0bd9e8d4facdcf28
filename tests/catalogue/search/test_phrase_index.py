"""The phrase index (PostgreSQL: catalogue_food_phrase, migration 0004) ranks one- and
two-word searches exactly as ranking every match does, and follows every write.

On SQLite every search ranks all matches, so these tests check the same behaviour there
through the one path."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.delivery import rendering
from catalogue.models import DataType, Food
from catalogue.search import matching, selectors, spelling, text
from catalogue.search.paging import Position
from catalogue.search.params import parse_food_query
from catalogue.search.ranking import food_search_columns
from tests.factories import FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db

NAMES = [
    "Butter", "Butter, salted", "Butter, whipped, with salt", "Peanut butter, smooth",
    "Cookies, peanut butter", "Butterbur, raw", "Crackers, buttery", "Butter butter",
    "Peanut butter", "Peanuts, butter roasted", "Apple butter", "Apple", "Apples, raw",
    "Juice, apple", "Applesauce", "Pie, apple, with butter crust", "Oil, peanut",
]  # fmt: skip
QUERIES = ["butter", "peanut butter", "peanut", "apple", "apples", "butt", "pean", "with",
           "butter peanut", "apple butter", "salted", "zzz"]  # fmt: skip


@pytest.fixture
def foods(db: None) -> None:
    us, gb = MarketFactory(code="US"), MarketFactory(code="GB", name="United Kingdom")
    for name in NAMES:
        FoodFactory(name=name, market=us)
    for name in ("Butter, British", "Peanut butter, crunchy"):
        FoodFactory(name=name, market=gb)


def ranked(q: str, *, market: str | None, page_size: int = 100, filtered: bool = False) -> list:
    return walk(q, market=market, page_size=page_size, filtered=filtered)[0]


def walk(q: str, *, market: str | None, page_size: int, filtered: bool = False) -> tuple:
    """The names of every match of ``q``, page by page (following ``next``), and each
    page's total. ``filtered`` adds a data_type filter that every food passes, which
    makes the selector rank all matches (no phrase index)."""
    params = {"q": [q], "page_size": [str(page_size)]}
    if filtered:
        params["data_type"] = [",".join(DataType.values)]
    query = parse_food_query(params)
    found, totals, position = [], [], Position(0)
    while position is not None:
        page = selectors.food_search(query=query, market=market, depth=None, position=position)
        found += [json.loads(row["summary"])["name"] for row in page.rows]
        totals.append((page.total, page.total_exact))
        position = page.next
    return found, totals


@pytest.mark.parametrize("q", QUERIES)
@pytest.mark.parametrize("market", ["US", None])
def test_phrase_ranked_search_equals_ranking_every_match(foods, q, market):
    expected = ranked(q, market=market, filtered=True)
    assert ranked(q, market=market) == expected
    assert ranked(q, market=market, page_size=2) == expected  # keyset pages across tiers


@pytest.mark.parametrize("q", QUERIES)
def test_every_page_of_a_phrase_ranked_search_counts_all_matches(foods, q):
    names, totals = walk(q, market="US", page_size=2)
    assert set(totals) == ({(len(names), True)} if names else {(0, True)})


def test_phrase_ranked_order_follows_the_relevance_rules(foods):
    found = ranked("butter", market="US")
    # The name is about butter (its head), then starts with it, then holds it.
    assert found[:4] == ["Butter", "Butter, salted", "Butter, whipped, with salt", "Butter butter"]
    assert found.index("Peanut butter") < found.index("Butterbur, raw")
    assert found.index("Butterbur, raw") < found.index("Crackers, buttery")


def test_page_numbers_past_the_phrase_matches_reach_the_other_matches(foods):
    query = parse_food_query({"q": ["butter"], "page_size": ["3"]})
    whole = ranked("butter", market="US")
    for offset in range(0, len(whole), 3):
        page = selectors.food_search(
            query=query, market="US", depth=None, position=Position(offset)
        )
        assert [json.loads(row["summary"])["name"] for row in page.rows] == whole[
            offset : offset + 3
        ]


def test_renamed_food_is_found_by_its_new_name_only(db):
    food = FoodFactory(name="Zucchini bread", market=MarketFactory(code="US"))
    assert ranked("zucchini", market="US") == ["Zucchini bread"]
    food.name = "Marrow loaf"
    food.save()  # recomputes the search columns
    assert ranked("zucchini", market="US") == []
    assert ranked("marrow", market="US") == ["Marrow loaf"]
    columns = food_search_columns(name="Squash loaf", data_type=food.data_type, headlines={})
    Food.objects.filter(id=food.id).update(name="Squash loaf", **columns)
    # One word: "marrow loaf" would be relaxed to "loaf" (issue 39), found by the new name.
    assert ranked("marrow", market="US") == []
    assert ranked("squash loaf", market="US") == ["Squash loaf"]


def test_deleted_food_is_no_longer_found(db):
    market = MarketFactory(code="US")
    kept, gone = (
        FoodFactory(name="Kale, raw", market=market),
        FoodFactory(name="Kale", market=market),
    )
    gone.delete()
    assert ranked("kale", market="US") == [kept.name]


def test_bulk_created_foods_are_found(db):
    market = MarketFactory(code="US")
    Food.objects.bulk_create(
        Food(public_id=f"sr28-{n}", source="sr28", source_id=str(n), name=f"Okra {n}",
             search_name=f" okra {n} ", data_type="sr_legacy", market=market, content_hash="x")
        for n in range(5)
    )  # fmt: skip
    assert ranked("okra", market="US") == [f"Okra {n}" for n in range(5)]


def test_market_scopes_phrase_ranked_search(foods):
    assert "Butter, British" not in ranked("butter", market="US")
    assert ranked("butter", market="GB") == ["Butter, British", "Peanut butter, crunchy"]


@pytest.mark.parametrize("cap", [1, 3, 100])
@pytest.mark.parametrize("q", ["butter", "peanut butter", "pean", "apple", "zzz"])
def test_phrase_ranked_total_is_the_count_of_every_shown_match(foods, monkeypatch, q, cap):
    # Issue 41.1: the phrase matches and then every match are counted in one statement;
    # the total, and whether it is exact, agree with ranking every match, cap included.
    Food.objects.filter(name="Butter butter").update(variant_count=0)  # a hidden look-alike
    monkeypatch.setattr(selectors, "SEARCH_COUNT_CAP", cap)
    # Pages of 2: the phrase matches fill the page, so the total is counted apart.
    every_type = {"q": [q], "page_size": ["2"], "data_type": [",".join(DataType.values)]}
    for prefix in (True, False):  # False: the last word whole (a completed broad prefix)
        everything = replace(parse_food_query(every_type), prefix=prefix)
        phrased = replace(parse_food_query({"q": [q], "page_size": ["2"]}), prefix=prefix)
        want = selectors.food_search(
            query=everything, market="US", depth=None, position=Position(0)
        )
        got = selectors.food_search(query=phrased, market="US", depth=None, position=Position(0))
        assert (got.total, got.total_exact) == (want.total, want.total_exact)
        assert [r["id"] for r in got.rows] == [r["id"] for r in want.rows]


@pytest.fixture
def postgres(request: pytest.FixtureRequest, db: None) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the phrase index is PostgreSQL's")
    request.getfixturevalue("foods")  # only where they are read: SQLite skips first
    rendering.summaries(list(Food.objects.values_list("id", flat=True)))  # stored


# One test each, looping over the cases: the foods and their renderings are made once
# (a test case of its own each cost its set-up, ~80 of them).
PAGE_CASES = [
    (q, market, limit)
    for q in ("butter", "peanut butter", "pean", "apple", "zzz", "buter")
    for market in ("US", None)
    for limit in (1, 3, 50)
]


def test_a_phrase_page_read_in_one_statement_equals_its_reads_apart(postgres):
    # Issue 41.1: rows, summaries, total and the words' vocabulary entries in one statement.
    Food.objects.filter(name="Butter butter").update(variant_count=0)  # a hidden look-alike
    for q, market, limit in PAGE_CASES:
        case = (q, market, limit)
        together = matching.phrase_page(
            q=q, market=market, prefix=True, after=None, offset=0, limit=limit, cap=2
        )
        rows = matching.phrase_rows(q=q, market=market, after=None, offset=0, limit=limit)
        assert [{k: r[k] for k in rows[0]} for r in together.rows] == rows, case
        stored = rendering.summaries([row["id"] for row in rows])
        assert {r["id"]: r["summary"] for r in together.rows} == stored, case
        full = len(rows) == limit
        total = matching.phrase_total(q=q, market=market, prefix=True, cap=2)
        assert together.total == (total if full else None), case
        assert together.words == spelling._counts(text.words(q), market), case


def test_a_stale_summary_is_not_read_with_the_page(postgres):
    food = Food.objects.get(name="Butter, salted")
    Food.objects.filter(pk=food.pk).update(revision=food.revision + 1)
    read = matching.phrase_page(
        q="butter", market="US", prefix=True, after=None, offset=0, limit=50, cap=10
    )
    summaries = {r["id"]: r["summary"] for r in read.rows}
    assert summaries[food.pk] is None
    assert all(summary for i, summary in summaries.items() if i != food.pk)


def test_a_new_search_page_costs_one_statement(postgres):
    # Rows with their summaries, the total and the spelling fallback's look-up (fewer
    # than FALLBACK_BELOW matches): one statement (four before issue 41.1's merge).
    query = parse_food_query({"q": ["butter"], "page_size": ["2"]})
    with CaptureQueriesContext(connection) as captured:
        page = selectors.food_search(query=query, market="US", depth=None, position=Position(0))
    assert page.total < selectors.FALLBACK_BELOW and len(page.rows) == 2
    assert len(captured) == 1, [q["sql"][:80] for q in captured]


TAIL_CASES = [
    (q, market, offset, bound)
    for q in ("butter", "pean", "apple", "butt")
    for market in ("US", None)
    for offset in (0, 1, 5)
    for bound in (None, 100)
]


def test_a_tail_page_read_in_one_statement_equals_its_reads_apart(postgres):
    # Issue 41.1: the bound's count, the other matches and their summaries together.
    for q, market, offset, bound in TAIL_CASES:
        case = (q, market, offset, bound)
        apart = matching.tail_rows(
            q=q, market=market, prefix=True, after=None, offset=offset, limit=4
        )
        together = matching.tail_page(
            q=q, market=market, prefix=True, after=None, offset=offset, limit=4, bound=bound
        )
        assert [{k: r[k] for k in r if k != "summary"} for r in together] == apart, case
        stored = rendering.summaries([row["id"] for row in apart])
        assert {r["id"]: r["summary"] for r in together} == stored, case


@pytest.mark.parametrize("bound", [0, 1, 2, 3])
def test_a_tail_page_past_its_bound_ranks_nothing(postgres, bound):
    matches = matching.match_count(q="butt", market="US", prefix=True, cap=100)
    read = matching.tail_page(
        q="butt", market="US", prefix=True, after=None, offset=0, limit=4, bound=bound
    )
    assert (read is None) == (matches > bound)


def test_a_new_search_page_past_its_phrase_matches_costs_one_statement(postgres):
    # The phrase rows end on the page: the other matches (bounded: "butter" is a prefix)
    # and their summaries follow in one more statement (three before issue 41.1).
    query = parse_food_query({"q": ["butter"], "page_size": ["50"]})
    with CaptureQueriesContext(connection) as captured:
        page = selectors.food_search(query=query, market="US", depth=None, position=Position(0))
    assert any(row["relevance"] < matching.PHRASE_RELEVANCE for row in page.rows)
    assert len(captured) == 2, [q["sql"][:80] for q in captured]
