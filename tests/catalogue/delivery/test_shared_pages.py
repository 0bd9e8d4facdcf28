"""Search pages shared by every worker through Redis and read in the meter's own round
trip (catalogue.delivery.shared, issue 41.1): a page another worker answered costs no
search query, is scoped by market, depth and every parameter, never served across a
load, and nothing is shared when turned off or with the worker memory off (a Redis
Cluster: tests/engines)."""

from __future__ import annotations

import zlib

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.delivery import rendering, shared
from catalogue.models import Food
from tests.catalogue.delivery.conftest import food_queries
from tests.factories import FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db

needs_redis = pytest.mark.skipif(not settings.REDIS_URL, reason="pages are shared through Redis")

SEARCH = "/v1/foods?q=butter"


def _redis():
    from django_redis import get_redis_connection

    return get_redis_connection("default")


def _page_keys() -> list[bytes]:
    match = f"{settings.REDIS_KEY_PREFIX}:page:*"
    return sorted(_redis().scan_iter(match=match))


def _another_worker() -> None:
    rendering.local_pages.clear()


@needs_redis
def test_a_page_one_worker_searched_is_served_to_another_without_a_query(
    sr28_small, unthrottled, memory_on
):
    first = unthrottled.get(SEARCH)
    assert first.status_code == 200 and first.json()["data"]
    assert len(_page_keys()) == 1
    _another_worker()
    with CaptureQueriesContext(connection) as captured:
        again = unthrottled.get(SEARCH)
    assert (again.status_code, again.content, again["ETag"]) == (200, first.content, first["ETag"])
    assert food_queries(captured) == []  # no search, no summaries
    assert int(again["RateLimit-Remaining"]) == int(first["RateLimit-Remaining"]) - 1
    assert rendering.local_pages.version_now() is not None
    assert unthrottled.get(SEARCH, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    # Every parameter is the page's: another page size is another page, shared apart.
    _another_worker()
    other = unthrottled.get(SEARCH + "&page_size=1")
    assert len(other.json()["data"]) == 1
    assert len(_page_keys()) == 2
    # q as searched: trailing spaces are the same page, served from the shared copy.
    _another_worker()
    with CaptureQueriesContext(connection) as captured:
        spaced = unthrottled.get("/v1/foods?q=butter%20%20")
    assert spaced.content == first.content and food_queries(captured) == []


@needs_redis
def test_a_page_is_scoped_by_market_and_depth_and_never_outlives_a_load(
    sr28_small, unthrottled, taster, memory_on
):
    india = MarketFactory(code="IN")
    FoodFactory(name="Butter, ghee", market=india)
    everywhere = unthrottled.get(SEARCH).json()["data"]  # a paid key: every market, no depth
    assert "Butter, ghee" in [f["name"] for f in everywhere]
    _another_worker()
    for_taster = taster.get(SEARCH)  # a Taster of market US, depth 1,000
    assert for_taster.status_code == 200
    assert "Butter, ghee" not in [f["name"] for f in for_taster.json()["data"]]
    keys = [k.decode().rsplit(":", 3)[-3:-1] for k in _page_keys()]
    assert sorted(keys) == [["*", "*"], ["US", str(settings.TASTER_RESULT_DEPTH)]]
    food = Food.objects.get(name="Butter, ghee")
    food.name = "Butter, ghee, renamed"
    food.save()  # a new catalogue version: the shared pages are under the old one
    _another_worker()
    names = [f["name"] for f in unthrottled.get(SEARCH).json()["data"]]
    assert "Butter, ghee, renamed" in names


def test_nothing_is_shared_when_turned_off_or_with_the_memory_off(
    sr28_small, unthrottled, settings
):
    assert settings.CATALOGUE_VERSION_SECONDS == 0  # the tests' default: memory off
    assert shared.page_carry(path=SEARCH, market=None, depth=None) is None
    assert unthrottled.get(SEARCH).status_code == 200
    settings.CATALOGUE_VERSION_SECONDS = 60
    settings.CATALOGUE_SHARED_SECONDS = 0
    assert shared.page_carry(path=SEARCH, market=None, depth=None) is None
    assert unthrottled.get(SEARCH).status_code == 200
    if settings.REDIS_URL:
        assert _page_keys() == []


def test_a_bad_search_is_still_the_problem_it_was(sr28_small, unthrottled, taster, memory_on):
    # Read before the meter now (to name the page): the problems keep their order and
    # status, and a parameter error is still counted (answered after metering).
    bad = unthrottled.get("/v1/foods?q=butter&page_size=0")
    assert bad.status_code == 400 and bad.json()["type"] == "/problems/invalid-parameter"
    assert "RateLimit-Remaining" in bad
    listing = taster.get("/v1/foods")  # Taster must search
    assert listing.status_code in (400, 403)
    if settings.REDIS_URL:
        assert _page_keys() == []


@needs_redis
def test_a_new_page_is_compressed_once_for_the_memory_and_the_shared_copy(
    sr28_small, unthrottled, memory_on, monkeypatch, settings
):
    """Issue 41.1: a page answered now is compressed once; this worker's memory and the
    copy shared through Redis hold the same bytes."""
    unthrottled.get("/v1/foods?q=cheese")  # imports, plans: nothing of the page below
    calls: list[int] = []
    compress = zlib.compress
    monkeypatch.setattr(zlib, "compress", lambda data, *a: calls.append(1) or compress(data, *a))
    first = unthrottled.get(SEARCH)
    assert first.status_code == 200 and first.json()["data"]
    assert len(calls) == 1
    ((packed, etag),) = [v for k, v in rendering.local_pages.entries.items() if "butter" in k[0]]
    assert zlib.decompress(packed) == first.content and etag == first["ETag"]
    shared_value = [
        _redis().get(k) for k in _page_keys() if _redis().get(k).startswith(etag.encode())
    ]
    assert shared_value == [etag.encode() + b"\n" + packed]
    # With the worker memory off nothing is kept or shared: nothing is compressed.
    settings.CATALOGUE_VERSION_SECONDS = 0
    assert unthrottled.get("/v1/foods?q=milk").status_code == 200
    assert len(calls) == 1
