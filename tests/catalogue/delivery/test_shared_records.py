"""Food records shared by every worker through Redis and read in the meter's own round
trip (catalogue.delivery.shared, issue 28.5): a record another worker read costs no database
query, is never served across a load or a market, and a bad value or a script Redis
forgot costs nothing but the old way."""

from __future__ import annotations

import zlib

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.delivery import rendering, shared
from catalogue.models import Food, FoodRendering
from metering.backends import get_meter, meter_reset
from tests.catalogue.delivery.conftest import food_queries
from tests.factories import FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db

needs_redis = pytest.mark.skipif(
    not settings.REDIS_URL, reason="records are shared through Redis only"
)

RECORD = "/v1/foods/sr28-01001"


def _redis():
    from django_redis import get_redis_connection

    return get_redis_connection("default")


def _shared_keys() -> list[bytes]:
    return sorted(_redis().scan_iter(match=f"{settings.REDIS_KEY_PREFIX}:record:*"))


def _another_worker() -> None:
    """What another worker sees: an empty memory, which reads the version again."""
    rendering.local_records.clear()


@needs_redis
def test_a_record_one_worker_read_is_served_to_another_without_a_query(
    sr28_small, unthrottled, memory_on
):
    first = unthrottled.get(RECORD)
    assert first.status_code == 200
    assert len(_shared_keys()) == 1
    _another_worker()
    with CaptureQueriesContext(connection) as captured:
        again = unthrottled.get(RECORD)
    assert (again.status_code, again.content, again["ETag"]) == (200, first.content, first["ETag"])
    assert food_queries(captured) == []  # the version was read, no food
    # Metered like any read: the request was counted in the same round trip.
    assert int(again["RateLimit-Remaining"]) == int(first["RateLimit-Remaining"]) - 1
    # The hit went into this worker's memory: the next read asks Redis for nothing more.
    assert rendering.local_records.holds(("sr28-01001", None))
    assert unthrottled.get(RECORD, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


@needs_redis
def test_a_change_to_the_catalogue_is_never_served_from_an_older_shared_copy(
    sr28_small, unthrottled, memory_on
):
    assert unthrottled.get(RECORD).json()["data"]["name"] != "Butter, renamed"
    food = Food.objects.get(public_id="sr28-01001")
    food.name = "Butter, renamed"
    food.save()  # a new catalogue version: the shared copy above is under the old one
    _another_worker()
    assert unthrottled.get(RECORD).json()["data"]["name"] == "Butter, renamed"
    assert len(_shared_keys()) == 2  # one copy per version; the old one expires


@needs_redis
def test_a_record_shared_for_every_market_is_not_served_in_another(unthrottled, taster, memory_on):
    india = MarketFactory(code="IN")
    food = FoodFactory(name="Egg, poultry, whole, raw", market=india)
    path = f"/v1/foods/{food.public_id}"
    assert unthrottled.get(path).status_code == 200  # a paid key reads every market
    assert [k.rsplit(b":", 2)[-2] for k in _shared_keys()] == [b"*"]
    _another_worker()
    refused = taster.get(path)  # a Taster of market US
    assert refused.status_code == 404
    assert refused["Content-Type"] == "application/problem+json"


@needs_redis
def test_a_value_that_does_not_decode_is_read_from_the_database_and_shared_again(
    sr28_small, unthrottled, memory_on
):
    first = unthrottled.get(RECORD)
    (key,) = _shared_keys()
    for garbage in (b"not a record", b'"tag"\nnot zlib', b""):
        _redis().set(key, garbage)
        _another_worker()
        again = unthrottled.get(RECORD)
        assert (again.status_code, again.content, again["ETag"]) == (
            200,
            first.content,
            first["ETag"],
        )
        assert _redis().get(key).startswith(first["ETag"].encode() + b"\n")


@needs_redis
def test_a_script_redis_does_not_know_is_loaded_and_the_request_served(
    sr28_small, unthrottled, memory_on
):
    first = unthrottled.get(RECORD)
    _another_worker()
    meter = get_meter()
    meter.script.sha = "0" * 40  # as after a Redis restart: NOSCRIPT for this sha
    again = unthrottled.get(RECORD)
    assert (again.status_code, again.content) == (200, first.content)
    assert int(again["RateLimit-Remaining"]) == int(first["RateLimit-Remaining"]) - 1
    assert meter.script.sha != "0" * 40  # loaded again


@needs_redis
def test_a_refused_request_serves_nothing_it_carried(sr28_small, taster, memory_on, clock):
    assert taster.get(RECORD).status_code == 200  # shared now
    _another_worker()
    answers = [taster.get(RECORD) for _ in range(10)]  # a Taster's burst is 10
    assert [a.status_code for a in answers] == [200] * 9 + [429]
    assert answers[-1]["Content-Type"] == "application/problem+json"
    assert b"Butter" not in answers[-1].content


def test_nothing_is_shared_when_turned_off_or_without_a_carrying_meter(
    sr28_small, unthrottled, memory_on, settings
):
    settings.CATALOGUE_SHARED_SECONDS = 0
    assert shared.record_carry(public_id="sr28-01001", market=None) is None
    assert unthrottled.get(RECORD).status_code == 200
    settings.CATALOGUE_SHARED_SECONDS = 3600
    settings.METER_BACKEND = "memory"  # the embedded default's meter
    meter_reset()
    assert get_meter().carries is False
    _another_worker()
    assert unthrottled.get(RECORD).status_code == 200
    if settings.REDIS_URL:
        assert _shared_keys() == []


def test_with_the_worker_memory_off_nothing_is_shared(sr28_small, unthrottled):
    assert settings.CATALOGUE_VERSION_SECONDS == 0  # the tests' default
    assert shared.record_carry(public_id="sr28-01001", market=None) is None
    assert unthrottled.get(RECORD).status_code == 200
    if settings.REDIS_URL:
        assert _shared_keys() == []


@needs_redis
def test_a_copy_is_written_off_the_requests_path(sr28_small, unthrottled, memory_on, settings):
    # Issue 41.2: the request hands its copy to the worker's writer thread and answers;
    # the thread sets it (one pipeline for all it gathered) a moment later.
    settings.CATALOGUE_SHARE_WRITE_SECONDS = 3  # the thread waits: the test drains first
    first = unthrottled.get(RECORD)
    assert first.status_code == 200
    assert _shared_keys() == []  # not written by the request
    assert len(shared.writes.pending()) == 1
    assert shared.writes.drain() == 1
    assert len(_shared_keys()) == 1
    _another_worker()
    with CaptureQueriesContext(connection) as captured:
        again = unthrottled.get(RECORD)
    assert again.content == first.content and food_queries(captured) == []


@needs_redis
def test_the_writer_thread_writes_what_it_gathered(sr28_small, unthrottled, memory_on, settings):
    import time

    settings.CATALOGUE_SHARE_WRITE_SECONDS = 0.01
    for public_id in ("sr28-01001", "sr28-01002"):
        assert unthrottled.get(f"/v1/foods/{public_id}").status_code in (200, 404)
    deadline = time.monotonic() + 10  # a thread of an earlier test may be waiting 3 s
    while shared.writes.pending() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert shared.writes.pending() == []
    assert _shared_keys()


@needs_redis
def test_a_record_read_from_the_database_is_kept_and_shared_as_stored(
    sr28_small, unthrottled, memory_on, monkeypatch
):
    """Issue 41.2: renderings are stored compressed, so a record's first read keeps in
    this worker's memory and shares through Redis the very bytes it read, compressing
    nothing on the request's path."""
    food = Food.objects.get(public_id="sr28-01001")
    rendering.render_foods([food.pk])  # stored, as after a load or an earlier read
    stored = FoodRendering.objects.get(food_id=food.pk)
    calls: list[int] = []
    compress = zlib.compress
    monkeypatch.setattr(zlib, "compress", lambda data, *a: calls.append(1) or compress(data, *a))
    first = unthrottled.get(RECORD)
    assert first.status_code == 200 and first.content == stored.body()
    assert calls == []
    assert rendering.local_records.entries[("sr28-01001", None)] == (
        bytes(stored.record),
        first["ETag"],
    )
    (key,) = _shared_keys()
    assert _redis().get(key) == first["ETag"].encode() + b"\n" + bytes(stored.record)


@needs_redis
def test_an_error_reply_for_the_shared_copy_costs_the_request_nothing(
    sr28_small, unthrottled, memory_on
):
    """The meter's script and the copy's GET share one write (metering/backends.py
    ``_exchange``): a GET answered with an error (here WRONGTYPE: the key holds a hash)
    is read as no copy, the script's decision stands, and the connection stays in step
    for the next request."""
    first = unthrottled.get(RECORD)
    (key,) = _shared_keys()
    _redis().delete(key)
    _redis().hset(key, "not", "a string")
    for expected_left in (1, 2):
        _another_worker()
        again = unthrottled.get(RECORD)
        assert (again.status_code, again.content) == (200, first.content)
        left = int(first["RateLimit-Remaining"]) - int(again["RateLimit-Remaining"])
        assert left == expected_left
