"""Usage you can debug (issue 40.3): requests by endpoint and answer, refused requests
attributed to their key, and the bounded recent-requests log; exact against the meter,
on both backends; ``GET /v1/usage/outcomes`` and ``GET /v1/usage/requests``."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from keys.models import ApiKey
from keys.services import key_create, key_revoke, key_rotate, key_set_allowed_addresses
from metering import outcomes
from metering.history import usage_flush
from metering.models import KeyRequest, KeyRequestOutcome, KeyUsageHour
from metering.outcomes import KEEP_REQUESTS, MAX_REFUSED_DIGESTS, outcomes_flush
from tests.conftest import T0
from tests.factories import AccountFactory
from tests.support.usage import every_outcome, read, small_account

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.metering.urls")]

RECORD = "GET /v1/test-records/{pk}"


def flush() -> None:
    usage_flush()
    outcomes_flush()


def by_answer(key: ApiKey) -> dict[tuple[str, int, str, bool], int]:
    return {
        (o.endpoint, o.status, o.kind, o.counted): o.requests
        for o in KeyRequestOutcome.objects.filter(key=key)
    }


def get(client, path: str, secret: str, status: int = 200, **params: str) -> dict:
    response = client.get(path, params, headers={"X-API-Key": secret})
    assert response.status_code == status, response.content
    assert "RateLimit-Limit" not in response  # unmetered
    return response.json()


def test_every_answer_by_endpoint_adds_up_to_the_meter(api_client, clock):
    account, keys, _secrets = every_outcome(api_client, clock)
    flush()
    assert by_answer(keys[0]) == {
        (RECORD, 200, "", True): 3,
        (RECORD, 429, "burst-limit-exceeded", False): 2,
    }
    assert by_answer(keys[1]) == {
        (RECORD, 200, "", True): 3,
        (RECORD, 500, "internal-error", False): 1,
        (RECORD, 429, "quota-exceeded", False): 2,
    }
    assert_exact(account)


def test_client_errors_by_kind_304s_and_unmetered_reads(api_client, clock):
    account = small_account(quota=100)
    key, secret = key_create(account=account, label="k")
    assert read(api_client, secret, 0) == 404
    clock.shift(2)
    assert read(api_client, secret, 403) == 403
    clock.shift(2)
    response = api_client.get(
        "/v1/test-records/1", headers={"X-API-Key": secret, "If-None-Match": '"v1"'}
    )
    assert response.status_code == 304
    assert api_client.get("/v1/usage", headers={"X-API-Key": secret}).status_code == 200
    clock.shift(3600)  # the next hour
    assert read(api_client, secret) == 200
    flush()
    assert by_answer(key) == {
        (RECORD, 404, "not-found", True): 1,
        (RECORD, 403, "market-not-selected", True): 1,
        (RECORD, 304, "", True): 1,
        ("GET /v1/usage", 200, "", False): 1,
        (RECORD, 200, "", True): 1,
    }
    assert KeyRequestOutcome.objects.filter(key=key).values("hour").distinct().count() == 2
    assert_exact(account)


def assert_exact(account) -> None:
    """The outcomes agree with the meter's history, hour by hour and key by key."""
    hours = KeyUsageHour.objects.filter(account=account)
    assert hours.exists()
    for hour in hours:
        rows = KeyRequestOutcome.objects.filter(key=hour.key, hour=hour.hour)
        assert sum(r.requests for r in rows if r.counted) == hour.count
        assert sum(r.requests for r in rows if r.status >= 500) == hour.failed
        assert sum(r.requests for r in rows if r.kind == "quota-exceeded") == hour.quota_refused
        assert sum(r.requests for r in rows if r.kind == "burst-limit-exceeded") == (
            hour.burst_refused
        )


def test_workers_add_up_and_a_repeated_flush_adds_nothing(api_client, clock):
    account = small_account(quota=100)
    key, secret = key_create(account=account, label="k")
    assert read(api_client, secret) == 200
    outcomes_flush()  # one worker's write
    clock.shift(2)
    assert read(api_client, secret) == 200
    outcomes_flush()  # another write adds to the same row
    outcomes_flush()  # nothing new: nothing added
    assert by_answer(key) == {(RECORD, 200, "", True): 2}
    assert KeyRequest.objects.filter(key=key).count() == 2


def test_refused_keys_are_attributed_unknown_and_rotated_secrets_are_not(api_client, clock):
    account = small_account(quota=100)
    revoked, revoked_secret = key_create(account=account, label="revoked")
    expiring, expiring_secret = key_create(
        account=account, label="expiring", expires_at=T0 + timedelta(seconds=30)
    )
    fenced, fenced_secret = key_create(account=account, label="fenced")
    rotated, old_secret = key_create(account=account, label="rotated")
    key_set_allowed_addresses(key=fenced, addresses=["198.51.100.0/24"])
    key_revoke(key=revoked)
    key_rotate(key=rotated)
    clock.shift(60)  # past the expiry
    unknown = "svc_sk_live_" + "A" * 49
    for secret in (revoked_secret, expiring_secret, old_secret, unknown, "not-a-key"):
        assert read(api_client, secret) == 401
    refused = api_client.get(
        "/v1/test-records/1", headers={"X-API-Key": fenced_secret}, REMOTE_ADDR="203.0.113.7"
    )
    assert refused.status_code == 401
    flush()
    for key in (revoked, expiring, fenced):
        assert by_answer(key) == {(RECORD, 401, "unauthorized", False): 1}, key.label
        (entry,) = KeyRequest.objects.filter(key=key)
        assert (entry.status, entry.path, entry.method) == (401, "/v1/test-records/1", "GET")
    assert KeyRequest.objects.get(key=fenced).address == "203.0.113.7"
    assert not KeyRequestOutcome.objects.filter(key=rotated).exists()
    assert KeyRequestOutcome.objects.count() == 3
    # The 401s themselves stay opaque: the same body for every one of them.
    bodies = {read(api_client, s) for s in (revoked_secret, unknown)}
    assert bodies == {401}


def test_nothing_secret_is_kept(api_client, clock):
    account = small_account(quota=100)
    key, secret = key_create(account=account, label="k")
    api_client.get(f"/v1/test-records/1?key={secret}", headers={"X-API-Key": secret})
    flush()
    entries = list(KeyRequest.objects.filter(key=key).values())
    assert [e["path"] for e in entries] == ["/v1/test-records/1"]  # never the query
    assert secret not in repr(entries)
    assert secret not in repr(list(KeyRequestOutcome.objects.values()))


def test_the_log_keeps_the_newest_per_key_and_one_day(api_client, clock):
    account = small_account(quota=1000)
    account.limits_override = None
    key, secret = key_create(account=account, label="k")
    quiet, quiet_secret = key_create(account=account, label="quiet")
    assert read(api_client, quiet_secret) == 200
    for i in range(KEEP_REQUESTS + 30):
        clock.shift(1.5)  # within the burst limit
        assert read(api_client, secret, i + 1) == 200
    flush()
    kept = list(KeyRequest.objects.filter(key=key).order_by("at"))
    assert len(kept) == KEEP_REQUESTS
    assert kept[0].path == "/v1/test-records/31"  # the oldest 30 went
    assert kept[-1].path == f"/v1/test-records/{KEEP_REQUESTS + 30}"
    assert sum(by_answer(key).values()) == KEEP_REQUESTS + 30  # the counts are all kept
    clock.shift(24 * 3600)
    assert read(api_client, secret) == 200
    flush()  # a day later the key's old entries go
    assert KeyRequest.objects.filter(key=key).count() == 1
    assert KeyRequest.objects.filter(key=quiet).count() == 1  # untouched: read filters it


def test_a_flood_of_made_up_keys_costs_one_bounded_lookup(api_client, clock):
    for i in range(MAX_REFUSED_DIGESTS + 50):
        outcomes.buffer.note(
            f"{i:064x}",
            None,
            outcomes.RequestEntry(T0, "GET", "/v1/foods", "GET /v1/foods", 401, "", 1.0, "", ""),
            counted=False,
        )
    assert len(outcomes.buffer._slots) == MAX_REFUSED_DIGESTS
    with CaptureQueriesContext(connection) as queries:
        assert outcomes_flush() == 0
    assert len(queries) <= 3  # the digests' lookup (then nothing to write)
    assert not KeyRequest.objects.exists()


def test_a_failed_write_keeps_the_requests_for_the_next(api_client, clock):
    account = small_account(quota=100)
    key, secret = key_create(account=account, label="k")
    assert read(api_client, secret) == 200
    slots = outcomes.buffer.take()
    clock.shift(2)
    assert read(api_client, secret, 2) == 200
    outcomes.buffer.put_back(slots)  # as outcomes_flush does when its write fails
    outcomes_flush()
    assert by_answer(key) == {(RECORD, 200, "", True): 2}
    assert [e.path for e in KeyRequest.objects.filter(key=key).order_by("at")] == [
        "/v1/test-records/1",
        "/v1/test-records/2",
    ]


def test_the_outcomes_api(api_client, clock):
    _account, keys, secrets = every_outcome(api_client, clock)
    flush()
    body = get(api_client, "/v1/usage/outcomes", secrets[0])
    assert body["meta"]["totals"] == {
        "2xx": 6,
        "304": 0,
        "4xx": 0,
        "401": 0,
        "429-quota": 2,
        "429-burst": 2,
        "5xx": 1,
        "counted": 6,
    }
    assert body["meta"]["key"] is None
    assert body["data"][0] == {
        "endpoint": RECORD,
        "status": 200,
        "kind": None,
        "outcome": "2xx",
        "counted": True,
        "requests": 6,
    }
    one = get(api_client, "/v1/usage/outcomes", secrets[0], key=str(keys[1].pk))
    assert one["meta"]["totals"]["5xx"] == 1
    assert one["meta"]["totals"]["429-burst"] == 0
    # It agrees with /v1/usage/history over the same range.
    history = get(api_client, "/v1/usage/history", secrets[0])["meta"]["totals"]
    assert history["requests"] == body["meta"]["totals"]["counted"]
    assert history["failed_5xx"] == body["meta"]["totals"]["5xx"]
    _other, other_secret = key_create(account=AccountFactory(market="US"), label="x")
    get(api_client, "/v1/usage/outcomes", other_secret, status=404, key=str(keys[0].pk))
    for params in ({"key": "x"}, {"period": "1y"}, {"colour": "red"}):
        problem = get(api_client, "/v1/usage/outcomes", secrets[0], status=400, **params)
        assert problem["type"] == "/problems/invalid-parameter"


def test_the_requests_api(api_client, clock):
    _account, keys, secrets = every_outcome(api_client, clock)
    flush()
    body = get(api_client, "/v1/usage/requests", secrets[0])
    assert len(body["data"]) == 11
    newest = body["data"][0]
    assert newest["key"] == keys[1].pk
    assert newest["status"] == 429
    assert newest["kind"] == "quota-exceeded"
    assert newest["path"] == "/v1/test-records/1"
    assert newest["at"] == "2026-03-10T14:25:06.000Z"
    assert set(newest) == {
        "at",
        "key",
        "method",
        "path",
        "endpoint",
        "status",
        "kind",
        "latency_ms",
        "address",
        "request_id",
    }
    assert newest["address"] == "127.0.0.1"
    times = [e["at"] for e in body["data"]]
    assert times == sorted(times, reverse=True)  # newest first
    one = get(api_client, "/v1/usage/requests", secrets[0], key=str(keys[0].pk), limit="2")
    assert [e["status"] for e in one["data"]] == [429, 429]
    assert one["meta"] == {"key": keys[0].pk, "limit": 2}
    for params in ({"limit": "0"}, {"limit": "101"}, {"key": "-1"}, {"since": "x"}):
        problem = get(api_client, "/v1/usage/requests", secrets[0], status=400, **params)
        assert problem["type"] == "/problems/invalid-parameter"
    _other, other_secret = key_create(account=AccountFactory(market="US"), label="x")
    get(api_client, "/v1/usage/requests", other_secret, status=404, key=str(keys[0].pk))
    assert get(api_client, "/v1/usage/requests", other_secret)["data"] == []
