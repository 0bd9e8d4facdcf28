"""Issue 36.1: no search, suggestion or analysis costs much more than an ordinary one,
whatever its input: q cleaned before any memory of it, no search without a letter or
digit, no prefix under three letters, a too-broad prefix completed instead of ranked,
and a time budget that stops the reads and gives the request's unit back."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connections, transaction

from catalogue.delivery import rendering
from catalogue.routing import catalogue_read_alias
from catalogue.search import budget, matching, selectors
from catalogue.search.paging import Position
from catalogue.search.params import parse_food_query
from catalogue.search.text import MIN_PREFIX, clean_query, fts5_query, postgres_tsquery
from core.problems import QueryTimeout
from tests.factories import FoodFactory

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]


def _names(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [food["name"] for food in response.json()["data"]]


@pytest.mark.parametrize(
    ("typed", "cleaned"),
    [
        ("butter", "butter"),
        ("  butter   salted ", "butter salted"),
        ("butter\u200b", "butter"),  # zero-width space
        ("\u202ebutter", "butter"),  # right-to-left override
        ("pea\u00adnut", "peanut"),  # soft hyphen
        ("cafe\u0301", "caf\u00e9"),  # NFC: one spelling of é
        ("\ufeff\u2060", ""),  # BOM, word joiner
        ("\t\n ", ""),
    ],
)
def test_q_is_cleaned_of_invisible_characters_and_extra_space(typed, cleaned):
    assert clean_query(typed) == cleaned


@pytest.mark.parametrize("q", ["%", ",", "(", "-", "\U0001f355", "\u200b", "\u202e", "\u0301"])
def test_a_search_without_a_letter_or_digit_is_a_400_not_a_scan(paid, q):
    FoodFactory(name="Milk, 2% fat")
    response = paid.get("/v1/foods", {"q": q})
    assert response.status_code == 400
    assert response.json()["type"] == "/problems/invalid-parameter"
    assert response.json()["errors"] == [
        {"parameter": "q", "detail": "Give at least one letter or digit."}
    ]


def test_spellings_of_one_search_are_one_page_one_link_one_memory_entry(paid, settings):
    settings.CATALOGUE_VERSION_SECONDS = 60
    FoodFactory(name="Butter, salted")
    plain = paid.get("/v1/foods", {"q": "butter"}).json()
    kept = len(rendering.local_pages.entries)
    for typed in ("butter ", " butter\u200b", "butter\u2060  "):
        body = paid.get("/v1/foods", {"q": typed}).json()
        assert body == plain
    assert plain["meta"]["q"] == "butter"
    assert plain["links"]["self"] == "/v1/foods?q=butter"
    assert len(rendering.local_pages.entries) == kept


def test_suggestions_are_kept_once_however_q_is_spaced(taster, settings):
    settings.CATALOGUE_VERSION_SECONDS = 60
    FoodFactory(name="Butter, salted")
    plain = taster.get("/v1/suggest", {"q": "butt"}).json()
    kept = len(rendering.local_pages.entries)
    assert taster.get("/v1/suggest", {"q": " butt\u200b "}).json() == plain
    assert len(rendering.local_pages.entries) == kept


@pytest.mark.parametrize("make", [postgres_tsquery, fts5_query])
def test_the_last_word_is_a_prefix_from_three_letters_on(make):
    assert MIN_PREFIX == 3
    assert not re.search(r"\*", make(["with", "c"]))
    assert not re.search(r"\*", make(["ch"]))
    assert make(["chi"]).endswith("*")
    assert not make(["chicken"], prefix=False).endswith("*")


def test_a_stop_word_and_a_letter_find_the_letter_as_a_word_not_half_the_catalogue(paid):
    FoodFactory(name="Fruit juice drink, with high vitamin C")
    for name in ("Chicken, breast", "Cheese, cheddar", "Carrots, raw", "Cod, Atlantic"):
        FoodFactory(name=name)
    assert _names(paid.get("/v1/foods", {"q": "with c"})) == [
        "Fruit juice drink, with high vitamin C"
    ]
    assert "Chicken, breast" in _names(paid.get("/v1/foods", {"q": "chi"}))


def test_a_prefix_too_broad_to_rank_is_searched_completed(paid, monkeypatch):
    monkeypatch.setattr(selectors, "TAIL_RANK_CAP", 3)
    for name in ("Cheese, cheddar", "Cheese, brie", "Cheese, blue", "Cheese, feta"):
        FoodFactory(name=name, data_type="sr_legacy")
    FoodFactory(name="Cherries, sweet, raw", data_type="sr_legacy")
    body = paid.get("/v1/foods", {"q": "che"}).json()
    assert body["meta"]["corrected_q"] == "cheese"
    assert all(name.startswith("Cheese") for name in _names_of(body))
    # Under the cap the prefix is ranked as typed, cherries included.
    monkeypatch.setattr(selectors, "TAIL_RANK_CAP", 100)
    body = paid.get("/v1/foods", {"q": "che"}).json()
    assert body["meta"]["corrected_q"] is None
    assert "Cherries, sweet, raw" in _names_of(body)


def test_a_widened_query_left_with_a_broad_prefix_is_searched_completed(paid, monkeypatch):
    # "xqzv che" matches nothing; widened, it is "che", too broad a prefix to rank: it is
    # searched completed, as "che" typed alone is (a 500 before).
    monkeypatch.setattr(selectors, "TAIL_RANK_CAP", 3)
    for name in ("Cheese, cheddar", "Cheese, brie", "Cheese, blue", "Cheese, feta"):
        FoodFactory(name=name, data_type="sr_legacy")
    response = paid.get("/v1/foods", {"q": "xqzv che"})
    assert response.status_code == 200
    body = response.json()
    assert body["meta"]["corrected_q"] == "cheese"
    assert body["meta"]["relaxed"] == {"dropped": ["xqzv"], "searched": "cheese"}
    assert all(name.startswith("Cheese") for name in _names_of(body))


def test_a_broad_prefix_completes_after_the_word_before_it(paid, monkeypatch):
    monkeypatch.setattr(selectors, "TAIL_RANK_CAP", 2)
    for name in (
        "Chicken, breast, raw",
        "Chicken, breast, roasted",
        "Chicken breast, breaded",
        "Bread, white",
        "Bread, wheat",
        "Bread, rye",
        "Chicken, bread stuffing",
    ):
        FoodFactory(name=name, data_type="sr_legacy")
    body = paid.get("/v1/foods", {"q": "chicken bre"}).json()
    assert body["meta"]["corrected_q"] == "chicken breast"
    assert "Chicken, breast, raw" in _names_of(body)


def _names_of(body: dict) -> list[str]:
    return [food["name"] for food in body["data"]]


def test_an_analysis_line_without_a_food_word_searches_nothing(unthrottled):
    FoodFactory(name="Milk, 2% fat")
    response = unthrottled.post(
        "/v1/analysis", {"ingredients": ["1 cup %%%", "2 tbsp ,"]}, format="json"
    )
    assert response.status_code == 200
    assert [line["status"] for line in response.json()["data"]["ingredients"]] == [
        "unmatched",
        "unmatched",
    ]


def _budgets(settings, kind: str, *, statement_ms: int, request_seconds: float) -> None:
    settings.CATALOGUE_BUDGETS = {
        **settings.CATALOGUE_BUDGETS,
        kind: {"statement_ms": statement_ms, "request_seconds": request_seconds},
    }


def _used(client) -> int:
    return client.get("/v1/usage").json()["data"]["request_count"]


def test_an_analysis_past_its_deadline_is_a_503_and_is_not_counted(unthrottled, settings):
    FoodFactory(name="Butter, salted")
    before = _used(unthrottled)
    _budgets(settings, "analysis", statement_ms=2000, request_seconds=0)
    response = unthrottled.post("/v1/analysis", {"ingredients": ["2 tbsp butter"]}, format="json")
    assert response.status_code == 503
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["type"] == "/problems/query-timeout"
    assert response.json()["doc_url"].endswith("/docs#tag/query-timeout")
    assert response["Retry-After"] == "2"
    assert _used(unthrottled) == before
    _budgets(settings, "analysis", statement_ms=2000, request_seconds=10)
    response = unthrottled.post("/v1/analysis", {"ingredients": ["2 tbsp butter"]}, format="json")
    assert response.status_code == 200
    assert _used(unthrottled) == before + 1


def test_a_search_past_its_deadline_is_a_503_and_is_not_counted(unthrottled, settings):
    FoodFactory(name="Butter, salted")
    before = _used(unthrottled)
    _budgets(settings, "search", statement_ms=2000, request_seconds=0)
    # Few matches: the spelling fallback's checkpoint finds the deadline passed (on
    # PostgreSQL the 1 ms statement timeout may stop a statement first: the same 503).
    response = unthrottled.get("/v1/foods", {"q": "buttr"})
    assert response.status_code == 503
    assert response.json()["type"] == "/problems/query-timeout"
    assert _used(unthrottled) == before


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_budget_checks_its_deadline_on_a_controlled_clock(settings):
    _budgets(settings, "search", statement_ms=2000, request_seconds=1.5)
    clock = _Clock()
    with budget.read_budget("search", clock=clock) as spent:
        assert spent.remaining_ms() == 1500
        budget.checkpoint()
        clock.now += 1.4
        assert spent.remaining_ms() == 100
        clock.now += 0.1
        with pytest.raises(QueryTimeout):
            budget.checkpoint()
    budget.checkpoint()  # outside any budget: nothing to check


def test_a_statement_running_past_the_budget_is_stopped_and_the_connection_reusable(settings):
    alias = catalogue_read_alias()
    connection = connections[alias]
    if connection.vendor == "postgresql":
        _budgets(settings, "search", statement_ms=50, request_seconds=5)
        slow = "SELECT pg_sleep(2)"
    else:
        _budgets(settings, "search", statement_ms=50, request_seconds=0.05)
        slow = (
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
        )
    with pytest.raises(QueryTimeout), budget.read_budget("search"), connection.cursor() as cursor:
        cursor.execute(slow)
    with connection.cursor() as cursor:  # the timeout is gone with the budget
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
        if connection.vendor == "postgresql":
            cursor.execute("SELECT current_setting('statement_timeout')")
            assert cursor.fetchone()[0] == "0"


def _setting(connection, name: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting(%s)", (name,))
        return cursor.fetchone()[0]


@pytest.mark.parametrize("mode", ["force_generic_plan", "auto"])
def test_the_budget_sets_the_plan_cache_mode_for_its_reads_only(settings, mode):
    # Issue 41.1: generic plans for the prepared catalogue reads, inside the budget only,
    # and put back after a budget nested in an outer transaction.
    connection = connections[catalogue_read_alias()]
    if connection.vendor != "postgresql":
        pytest.skip("plan_cache_mode is PostgreSQL's")
    settings.CATALOGUE_PLAN_CACHE_MODE = mode
    before = _setting(connection, "plan_cache_mode")
    with budget.read_budget("search"):
        assert _setting(connection, "plan_cache_mode") == mode
    assert _setting(connection, "plan_cache_mode") == before
    with transaction.atomic(using=connection.alias):  # nested: a savepoint
        with budget.read_budget("search"):
            assert _setting(connection, "plan_cache_mode") == mode
        assert _setting(connection, "plan_cache_mode") == before


def test_a_new_search_ranks_its_other_matches_with_a_generic_plan(settings):
    # The tail's statement was planned again at each execution under "auto" (its first
    # five always): under the budget's mode its first execution makes the generic plan.
    connection = connections[catalogue_read_alias()]
    if (
        connection.vendor != "postgresql"
        or connection.settings_dict["OPTIONS"].get("prepare_threshold") is None
    ):
        pytest.skip("prepared statements are PostgreSQL's, off through PgBouncer")
    for name in ("Butter", "Butterbur, raw", "Crackers, buttery"):
        FoodFactory(name=name)
    query = parse_food_query({"q": ["butter"]})
    with budget.read_budget("search"):
        page = selectors.food_search(query=query, market=None, depth=None, position=Position(0))
    assert any(row["relevance"] < matching.PHRASE_RELEVANCE for row in page.rows)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
            "WHERE statement LIKE 'WITH bound AS%%'"
        )
        assert cursor.fetchall() == [(1, 0)]


def test_every_deadline_ends_before_gunicorn_and_nginx_give_up(settings):
    """Item 36.6: a request the proxy cut off was charged though no client got it; the
    app's own budget must end every catalogue read before gunicorn's worker timeout and
    nginx's proxy_read_timeout."""
    conf = (ROOT / "gunicorn.conf.py").read_text()
    worker_timeout = int(re.search(r'_int\("GUNICORN_TIMEOUT", (\d+)\)', conf)[1])
    nginx = (ROOT / "deploy" / "nginx.conf.template").read_text()
    proxy_timeout = min(int(s) for s in re.findall(r"proxy_read_timeout (\d+)s;", nginx))
    for limits in settings.CATALOGUE_BUDGETS.values():
        longest = limits["request_seconds"] + limits["statement_ms"] / 1000
        assert longest < worker_timeout < proxy_timeout


def test_relaxing_never_searches_a_query_keeping_a_word_no_name_matches():
    tried: list[str] = []

    def top(q: str):  # type: ignore[no-untyped-def]
        tried.append(q)
        return {"relevance": 13, "quality": 0, "name_length": 10} if q == "white bread" else None

    def relax(found):  # type: ignore[no-untyped-def]
        tried.clear()
        return matching.relaxed("white bread xqzzv", top, lambda terms: {}, lambda terms: {}, found)

    assert relax(lambda terms: {"white", "bread", "xqzzv"}) == "white bread"
    assert len(tried) == 4  # the query itself, then each two-word query
    assert relax(lambda terms: {"white", "bread"}) == "white bread"
    assert tried == ["white bread xqzzv", "white bread"]
    assert relax(lambda terms: set()) is None
    assert tried == ["white bread xqzzv"]


def test_words_found_are_those_some_name_matches_whole_or_as_a_prefix():
    FoodFactory(name="Butter, salted")
    FoodFactory(name="Cheese, cheddar")
    found = matching.words_found(["butter", "butt", "cheddar", "xqzzv", "bu", "salt"], None)
    assert found == {"butter", "butt", "cheddar", "salt"}
    assert matching.words_found([], None) == set()


def _sent(trace: Path) -> list[str]:
    """The simple-query and prepared-statement messages libpq sent, as its trace shows
    them (``Query "..."``, ``Parse``/``Bind``): one entry per message that asks."""
    asked = re.compile(r"\tF\t\d+\t(Query|Bind)\t")
    return [
        line.split("\t", 4)[4].strip()
        for line in trace.read_text().splitlines()
        if asked.search(line)
    ]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("mode", ["force_generic_plan", "auto"])
def test_an_outermost_budget_begins_with_its_settings_in_one_message(settings, tmp_path, mode):
    # Issue 41.1: BEGIN and both settings in one round trip, then the reads, then COMMIT;
    # psycopg sends no BEGIN of its own.
    connection = connections[catalogue_read_alias()]
    if connection.vendor != "postgresql":
        pytest.skip("the statement timeout is PostgreSQL's")
    _budgets(settings, "search", statement_ms=1500, request_seconds=5)
    settings.CATALOGUE_PLAN_CACHE_MODE = mode
    assert _setting(connection, "statement_timeout") == "0"  # connected, health checked
    trace = tmp_path / "trace"
    with trace.open("w") as out:
        connection.connection.pgconn.trace(out.fileno())
        try:
            with budget.read_budget("search"), connection.cursor() as cursor:
                cursor.execute(
                    "SELECT current_setting('statement_timeout'), "
                    "current_setting('plan_cache_mode')"
                )
                inside = cursor.fetchone()
        finally:
            connection.connection.pgconn.untrace()
    assert inside == ("1500ms", mode)
    sent = _sent(trace)
    assert len(sent) == 3, sent
    assert sent[0] == (
        f'"BEGIN; SET LOCAL statement_timeout = 1500; SET LOCAL plan_cache_mode = {mode}"'
    )
    assert sent[2] == '"COMMIT"'
    assert _setting(connection, "statement_timeout") == "0"  # gone with the transaction


@pytest.mark.django_db(transaction=True)
def test_an_outermost_budget_stopped_by_its_timeout_leaves_the_connection_clean(settings):
    connection = connections[catalogue_read_alias()]
    if connection.vendor != "postgresql":
        pytest.skip("the statement timeout is PostgreSQL's")
    _budgets(settings, "search", statement_ms=50, request_seconds=5)
    with pytest.raises(QueryTimeout), budget.read_budget("search"), connection.cursor() as cursor:
        cursor.execute("SELECT pg_sleep(2)")
    assert not connection.in_atomic_block
    assert connection.connection.pgconn.transaction_status == 0  # idle: rolled back
    assert _setting(connection, "statement_timeout") == "0"
    with budget.read_budget("search"):  # the next budget begins as the first did
        assert _setting(connection, "statement_timeout") == "50ms"


@pytest.mark.django_db(transaction=True)
def test_a_plan_cache_mode_not_postgresql_s_is_refused_before_anything_is_sent(settings):
    connection = connections[catalogue_read_alias()]
    if connection.vendor != "postgresql":
        pytest.skip("plan_cache_mode is PostgreSQL's")
    settings.CATALOGUE_PLAN_CACHE_MODE = "auto; DROP TABLE catalogue_food"
    with pytest.raises(ImproperlyConfigured), budget.read_budget("search"):
        pass
    assert connection.connection.pgconn.transaction_status == 0
