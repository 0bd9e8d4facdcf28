"""Metered views end to end: throttle, RateLimit headers, the two 429s, GET /v1/usage,
shared allowances, rotation and tier changes (spec 2.1, 2.4, 3.3, 4, 7, 8)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings

from accounts.services import account_set_tier
from accounts.tiers import TierLimits
from core.requestnotes import notes_of
from keys.services import key_create, key_rotate
from metering.history import usage_flush
from metering.selectors import key_usage_hourly, key_usage_in_window
from tests.conftest import T0
from tests.factories import AccountFactory
from tests.support.metering import IETF, RATELIMIT, custom_account, read, usage

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.metering.urls")]

NEXT_HOUR = datetime(2026, 3, 10, 15, tzinfo=UTC)


def test_admitted_read_carries_every_ratelimit_header(api_client, key_and_secret, clock):
    response = read(api_client, key_and_secret[1])
    assert response.status_code == 200
    assert response["RateLimit-Limit"] == "250"
    assert response["RateLimit-Remaining"] == "249"
    assert response["RateLimit-Reset"] == "2100"  # 14:25 -> top of the next hour
    assert response["X-RateLimit-Reset"] == str(int(NEXT_HOUR.timestamp()))
    assert response["RateLimit-Policy"] == '"quota";q=250;w=86400, "burst";q=10;w=10'
    assert response["RateLimit"] == '"quota";r=249;t=2100, "burst";r=9;t=1'


@pytest.mark.parametrize(
    ("pk", "headers", "status"),
    [(1, {"If-None-Match": '"v1"'}, 304), (0, {}, 404), (403, {}, 403)],
)
def test_304_403_and_404_are_counted_and_carry_the_headers(
    api_client, key_and_secret, clock, pk, headers, status
):
    secret = key_and_secret[1]
    read(api_client, secret)
    response = read(api_client, secret, pk=pk, **headers)
    assert response.status_code == status
    assert response["RateLimit-Remaining"] == "248"
    assert all(name in response for name in RATELIMIT + IETF)
    assert usage(api_client, secret)["request_count"] == 2


def test_burst_429_carries_only_retry_after_and_is_not_counted(api_client, key_and_secret, clock):
    secret = key_and_secret[1]
    assert [read(api_client, secret).status_code for _ in range(10)] == [200] * 10
    response = read(api_client, secret)
    assert response.status_code == 429
    assert response["Retry-After"] == "1"
    assert not any(name in response for name in RATELIMIT + IETF)
    body = response.json()
    assert body["type"] == "/problems/burst-limit-exceeded"
    assert (body["limit"], body["window"], body["retry_after"]) == (10, 10, 1)
    assert usage(api_client, secret)["request_count"] == 10
    clock.shift(1)
    assert read(api_client, secret).status_code == 200  # waiting Retry-After works


def test_quota_429_carries_retry_after_and_ratelimit_headers(api_client, clock):
    account = custom_account(3)
    _, secret = key_create(account=account, label="k")
    assert [read(api_client, secret).status_code for _ in range(3)] == [200] * 3
    response = read(api_client, secret)
    assert response.status_code == 429
    body = response.json()
    assert body["type"] == "/problems/quota-exceeded"
    assert (body["limit"], body["window"]) == (3, 86400)
    # all three were used at 14:25: they leave the window at 14:00 tomorrow
    assert body["retry_after"] == 24 * 3600 - 25 * 60 == int(response["Retry-After"])
    assert response["RateLimit-Remaining"] == "0"
    assert response["RateLimit-Limit"] == "3"
    # One moment (issue 24.9): the reset is when a request is admitted again.
    assert response["RateLimit-Reset"] == response["Retry-After"]
    assert int(response["X-RateLimit-Reset"]) == int(T0.timestamp()) + body["retry_after"]
    assert all(name in response for name in IETF)
    assert usage(api_client, secret)["request_count"] == 3  # the 429 was not counted


def ietf_t(response, policy: str) -> tuple[int, int]:
    """``(r, t)`` of ``policy`` in the response's draft ``RateLimit`` header."""
    for item in response["RateLimit"].split(","):
        name, *params = item.strip().split(";")
        if name == f'"{policy}"':
            values = dict(p.split("=") for p in params)
            return int(values["r"]), int(values["t"])
    raise AssertionError(f"no {policy} policy in {response['RateLimit']}")


def test_quota_t_at_zero_is_the_wait_until_a_request_is_admitted(api_client, clock):
    """Issue 14.4: with r=0 the quota's t says when a request is admitted again (the
    hours aging out), from the response that spent the last request on; on the 429 it
    equals Retry-After, and so do RateLimit-Reset and X-RateLimit-Reset (issue 24.9: one
    moment on a quota 429; the top of the next hour would free nothing)."""
    account = custom_account(4)
    _, secret = key_create(account=account, label="k")
    read(api_client, secret)
    clock.shift(3600)
    responses = [read(api_client, secret) for _ in range(4)]
    assert [r.status_code for r in responses] == [200, 200, 200, 429]
    assert ietf_t(responses[1], "quota") == (1, 2100)  # r > 0: allowance next frees
    last, refused = responses[2], responses[3]
    wait = 23 * 3600 - 25 * 60  # the first hour's request ages out at 14:00 tomorrow
    assert ietf_t(last, "quota") == (0, wait)
    assert ietf_t(refused, "quota") == (0, wait) and int(refused["Retry-After"]) == wait
    assert refused["RateLimit-Reset"] == last["RateLimit-Reset"] == str(wait)
    assert int(refused["X-RateLimit-Reset"]) == int(T0.timestamp()) + 3600 + wait
    assert usage(api_client, secret)["period_end"] == (
        (T0 + timedelta(seconds=3600 + wait)).isoformat().replace("+00:00", "Z")
    )
    assert usage(api_client, secret)["request_count"] == 4  # the probe counted nothing
    clock.shift(wait)
    assert read(api_client, secret).status_code == 200


def test_quota_t_on_a_billing_period_is_the_renewal(api_client, clock):
    account = custom_account(2, window="month")
    _, secret = key_create(account=account, label="k")
    responses = [read(api_client, secret) for _ in range(3)]
    assert [r.status_code for r in responses] == [200, 200, 429]
    renewal = int(responses[2]["RateLimit-Reset"])
    assert ietf_t(responses[1], "quota") == ietf_t(responses[2], "quota") == (0, renewal)
    assert int(responses[2]["Retry-After"]) == renewal


def test_burst_t_at_zero_is_one_token_away_not_a_full_bucket(api_client, key_and_secret, clock):
    """Issue 14.4: the Taster bucket refills one token a second; with r=0 the burst
    policy's t is 1 (when the next request is admitted), not 10 (bucket full)."""
    secret = key_and_secret[1]
    responses = [read(api_client, secret) for _ in range(10)]
    assert ietf_t(responses[8], "burst") == (1, 9)  # r > 0: seconds until full
    assert ietf_t(responses[9], "burst") == (0, 1)
    refused = read(api_client, secret)
    assert refused.status_code == 429 and refused["Retry-After"] == "1"
    clock.shift(1)
    assert read(api_client, secret).status_code == 200


def test_quota_retry_after_waits_for_the_hours_that_free_room(api_client, clock):
    account = custom_account(4)
    _, secret = key_create(account=account, label="k")
    read(api_client, secret)
    clock.shift(3600)
    [read(api_client, secret) for _ in range(3)]
    response = read(api_client, secret)
    assert response.status_code == 429
    retry_after = int(response["Retry-After"])
    assert retry_after == 23 * 3600 - 25 * 60  # the first hour's one request ages out
    clock.shift(retry_after - 1)
    assert read(api_client, secret).status_code == 429
    clock.shift(1)
    assert read(api_client, secret).status_code == 200
    assert read(api_client, secret).status_code == 429


def test_usage_answers_over_quota_and_agrees_with_the_last_headers(api_client, clock):
    account = custom_account(2)
    _, secret = key_create(account=account, label="k")
    read(api_client, secret)
    last = read(api_client, secret)
    assert read(api_client, secret).status_code == 429
    data = usage(api_client, secret)
    assert data == {
        "tier": "executive_chef",
        "quota_window": "daily",
        "request_quota": 2,
        "request_count": 2,
        "remaining": int(last["RateLimit-Remaining"]),
        "period_end": "2026-03-11T14:00:00Z",  # spent: when 14:00 today ages out
    }
    end = datetime.fromisoformat(data["period_end"])
    assert int(end.timestamp()) == int(last["X-RateLimit-Reset"])
    assert usage(api_client, secret)["request_count"] == 2  # reading usage counts nothing


def test_paid_usage_record_is_monthly_until_the_renewal(api_client, clock):
    paid = AccountFactory()
    account_set_tier(account=paid, tier="sous_chef", now=T0)
    _, secret = key_create(account=paid, label="k")
    last = read(api_client, secret)
    data = usage(api_client, secret)
    assert data["tier"] == "sous_chef"
    assert data["quota_window"] == "monthly"
    assert (data["request_quota"], data["request_count"], data["remaining"]) == (250000, 1, 249999)
    assert data["period_end"] == "2026-04-10T14:00:00Z"
    assert last["RateLimit-Reset"] == str(31 * 86400 - 25 * 60)


def test_keys_of_one_account_share_one_allowance(api_client, clock):
    account = custom_account(10)
    secrets = [key_create(account=account, label=f"k{i}")[1] for i in range(5)]
    statuses = [read(api_client, secrets[i % 5]).status_code for i in range(15)]
    assert statuses == [200] * 10 + [429] * 5
    assert all(usage(api_client, s)["request_count"] == 10 for s in secrets)


def test_keys_share_one_burst_bucket(api_client, key_and_secret, clock):
    account = key_and_secret[0].account
    other = key_create(account=account, label="other")[1]
    statuses = [read(api_client, (key_and_secret[1], other)[i % 2]).status_code for i in range(12)]
    assert statuses == [200] * 10 + [429] * 2


def test_rotation_keeps_the_key_history(api_client, key_and_secret, clock):
    key, secret = key_and_secret
    [read(api_client, secret) for _ in range(3)]
    _, fresh = key_rotate(key=key)
    assert read(api_client, secret).status_code == 401
    [read(api_client, fresh) for _ in range(2)]
    usage_flush()
    assert key_usage_in_window(account=key.account)[key.pk] == 5
    assert key_usage_hourly(key=key)[-1].count == 5
    key.refresh_from_db()
    assert key.last_used_at == T0


def test_upgrade_between_paid_tiers_keeps_usage_and_renewal(api_client, paid_key_and_secret, clock):
    key, secret = paid_key_and_secret
    [read(api_client, secret) for _ in range(4)]
    before = read(api_client, secret)
    account_set_tier(account=key.account, tier="head_chef")
    after = read(api_client, secret)
    assert after["RateLimit-Limit"] == "2000000"
    assert after["RateLimit-Remaining"] == str(2_000_000 - 6)
    assert after["X-RateLimit-Reset"] == before["X-RateLimit-Reset"]


def test_taster_to_paid_starts_a_period_at_the_hour_of_the_change(
    api_client, key_and_secret, clock
):
    key, secret = key_and_secret
    [read(api_client, secret) for _ in range(5)]
    clock.shift(3600)
    [read(api_client, secret) for _ in range(2)]
    account_set_tier(account=key.account, tier="sous_chef")
    response = read(api_client, secret)
    # earlier hours stay behind; this hour's two requests belong to the new period
    assert response["RateLimit-Remaining"] == str(250_000 - 3)
    data = usage(api_client, secret)
    assert data["period_end"] == "2026-04-10T15:00:00Z"


def test_paid_to_taster_sees_the_last_24_hours_of_use(api_client, clock):
    paid = AccountFactory(market="US")
    account_set_tier(account=paid, tier="sous_chef", now=T0 - timedelta(days=3))
    _, secret = key_create(account=paid, label="k")
    clock.move_to(T0 - timedelta(hours=30))
    [read(api_client, secret) for _ in range(7)]
    clock.move_to(T0 - timedelta(hours=2))
    [read(api_client, secret) for _ in range(5)]
    clock.move_to(T0)
    account_set_tier(account=paid, tier="taster")
    response = read(api_client, secret)
    assert response["RateLimit-Limit"] == "250"
    assert response["RateLimit-Remaining"] == str(250 - 6)  # 5 + this one; 30 h ago aged out


def test_a_tier_change_applies_to_every_key_on_the_next_request(api_client, clock):
    account = custom_account(100)
    secrets = [key_create(account=account, label=f"k{i}")[1] for i in range(3)]
    [read(api_client, s) for s in secrets]
    account_set_tier(
        account=account, tier="executive_chef", custom=TierLimits(5, "day", None, None)
    )
    assert [read(api_client, s)["RateLimit-Limit"] for s in secrets] == ["5"] * 3


def test_metering_switched_off_counts_nothing(api_client, key_and_secret, settings, clock):
    settings.METERING_ENABLED = False
    statuses = [read(api_client, key_and_secret[1]).status_code for _ in range(20)]
    assert statuses == [200] * 20
    assert "RateLimit-Limit" not in read(api_client, key_and_secret[1])
    assert usage(api_client, key_and_secret[1])["request_count"] == 0


def test_only_reads_are_metered(api_client, key_and_secret, clock):
    secret = key_and_secret[1]
    response = api_client.post("/v1/test-records/1", headers={"X-API-Key": secret})
    assert response.status_code == 405
    assert "RateLimit-Limit" not in response
    assert api_client.head("/v1/test-records/1", headers={"X-API-Key": secret}).status_code == 200
    assert usage(api_client, secret)["request_count"] == 1  # the HEAD


def test_unauthenticated_requests_are_not_metered(api_client, key_and_secret, clock):
    assert read(api_client, "svc_sk_live_nope").status_code == 401
    assert api_client.get("/v1/test-records/1").status_code == 401
    assert usage(api_client, key_and_secret[1])["request_count"] == 0


def test_unthrottled_tier_has_no_burst_limit(api_client, clock):
    paid = AccountFactory()
    account_set_tier(account=paid, tier="head_chef", now=T0)
    _, secret = key_create(account=paid, label="k")
    statuses = {read(api_client, secret).status_code for _ in range(120)}
    assert statuses == {200}
    assert "burst" not in read(api_client, secret)["RateLimit-Policy"]


def test_a_hot_key_is_metered_without_sql(api_client, key_and_secret, clock):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    secret = key_and_secret[1]
    read(api_client, secret)  # first use: the key is cached, the meter seeded
    with CaptureQueriesContext(connection) as queries:
        assert read(api_client, secret).status_code == 200
    # Redis pass: the shared key cache answers too, so no SQL at all; embedded pass
    # (no shared cache): only the key look-up, nothing from metering.
    expected = 0 if settings.REDIS_URL else 1
    assert len(queries) == expected, [q["sql"] for q in queries]


def test_a_metered_view_leaves_the_key_check_to_its_meter_an_unmetered_one_does_not(
    api_client, key_and_secret, clock
):
    """``MeteredAPIView`` notes, before authentication runs, that its meter checks the
    key's epoch (keys/authentication.py may then answer an unchecked copy); /v1/usage
    has no meter, so its authentication checks the key itself."""
    metered = read(api_client, key_and_secret[1])
    assert metered.status_code == 200
    assert notes_of(metered.wsgi_request).key_checked_by_meter
    unmetered = api_client.get("/v1/usage", headers={"X-API-Key": key_and_secret[1]})
    assert unmetered.status_code == 200
    assert not notes_of(unmetered.wsgi_request).key_checked_by_meter


# --- a body of the wrong media type (issue 36.6) ------------------------------------------


def analyse(client, secret: str, body: bytes | str, content_type: str | None):
    """POST /v1/analysis (a metered read with a body) with ``body`` as ``content_type``
    (None: no Content-Type header at all)."""
    headers = {"X-API-Key": secret}
    if content_type is None:
        return client.generic("POST", "/v1/analysis", body, content_type="", headers=headers)
    return client.post("/v1/analysis", body, content_type=content_type, headers=headers)


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ('{"ingredients": ["1 egg"]}', "text/plain"),
        ("ingredients=1+egg", "application/x-www-form-urlencoded"),
        ('{"ingredients": ["1 egg"]}', None),
        (b"--x\r\n\r\n1 egg\r\n--x--", "multipart/form-data; boundary=x"),
    ],
    ids=["text/plain", "form", "no Content-Type", "multipart"],
)
def test_a_body_of_the_wrong_media_type_is_a_415_that_is_not_metered(
    api_client, key_and_secret, clock, body, content_type
):
    """Refused from the headers before the meter decides (metering/api.py): no unit, no
    burst token, no RateLimit headers, nothing in the key's outcome buckets, like a
    401; the same body as JSON is a counted 400 (docs/metering.md, "What is metered")."""
    secret = key_and_secret[1]
    response = analyse(api_client, secret, body, content_type)
    assert response.status_code == 415
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert (problem["type"], problem["status"]) == ("/problems/unsupported-media-type", 415)
    assert problem["detail"] == "Send the request body as application/json."
    assert not any(name in response for name in RATELIMIT + IETF)
    assert usage(api_client, secret)["request_count"] == 0
    counted = analyse(api_client, secret, '{"ingredients": []}', "application/json")
    assert counted.status_code == 400
    assert counted["RateLimit"].startswith('"quota";r=249;')  # the 415 took no unit
    assert '"burst";r=9;' in counted["RateLimit"]  # nor a burst token
    assert usage(api_client, secret)["request_count"] == 1
    usage_flush()
    hour = key_usage_hourly(key=key_and_secret[0], now=T0)[-1]
    assert (hour.count, hour.quota_refused, hour.burst_refused, hour.failed) == (1, 0, 0, 0)


def test_an_empty_body_of_any_media_type_is_the_counted_400_of_an_empty_list(
    api_client, key_and_secret, clock
):
    """No body, nothing to parse: DRF reads it as ``{}`` whatever its Content-Type, so
    the view answers (a counted 400), as before."""
    secret = key_and_secret[1]
    response = analyse(api_client, secret, b"", "text/plain")
    assert response.status_code == 400
    assert response.json()["type"] == "/problems/invalid-ingredients"
    assert usage(api_client, secret)["request_count"] == 1


def test_a_wrong_media_type_without_a_key_is_the_401(api_client, db):
    response = api_client.post("/v1/analysis", "1 egg", content_type="text/plain")
    assert response.status_code == 401
