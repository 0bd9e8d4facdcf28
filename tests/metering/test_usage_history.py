"""GET /v1/usage/history (issue 29.4): unmetered, by hour or day, per key or every key,
the four outcomes, a named period or a range; exact against the live meter (once
flushed) and against the dashboard's CSV, which reads the same selector."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest
from django.test import Client
from rest_framework.test import APIClient

from keys.services import key_create, key_revoke
from metering.history import usage_flush
from tests.conftest import T0
from tests.factories import AccountFactory
from tests.support.usage import every_outcome, read

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.metering.urls")]

RATELIMIT = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit")


def history(client: APIClient, secret: str, status: int = 200, **params: str) -> dict:
    response = client.get("/v1/usage/history", params, headers={"X-API-Key": secret})
    assert response.status_code == status, response.content
    assert not any(name in response for name in RATELIMIT)  # unmetered
    return response.json()


def test_every_outcome_per_hour_matches_the_live_meter(api_client, clock):
    _, keys, secrets = every_outcome(api_client, clock)
    usage_flush()
    body = history(api_client, secrets[0])
    assert len(body["data"]) == 24
    assert body["data"][-1] == {
        "start": "2026-03-10T14:00:00Z",
        "end": "2026-03-10T15:00:00Z",
        "requests": 6,
        "quota_429": 2,
        "burst_429": 2,
        "failed_5xx": 1,
    }
    assert body["data"][0]["start"] == "2026-03-09T15:00:00Z"
    assert body["meta"] == {
        "granularity": "hour",
        "start": "2026-03-09T15:00:00Z",
        "end": "2026-03-10T15:00:00Z",
        "key": None,
        "totals": {"requests": 6, "quota_429": 2, "burst_429": 2, "failed_5xx": 1},
    }
    live = api_client.get("/v1/usage", headers={"X-API-Key": secrets[0]}).json()["data"]
    assert live["request_count"] == body["meta"]["totals"]["requests"] == 6
    # Per key, and the keys add up to the account.
    first = history(api_client, secrets[1], key=str(keys[0].pk))["meta"]["totals"]
    second = history(api_client, secrets[1], key=str(keys[1].pk))["meta"]["totals"]
    assert first == {"requests": 3, "quota_429": 0, "burst_429": 2, "failed_5xx": 0}
    assert second == {"requests": 3, "quota_429": 2, "burst_429": 0, "failed_5xx": 1}


def test_it_answers_when_the_quota_is_spent_and_counts_nothing(api_client, clock):
    _, _, secrets = every_outcome(api_client, clock)
    assert read(api_client, secrets[0]) == 429  # the quota is spent
    for _ in range(5):
        history(api_client, secrets[0])
    usage = api_client.get("/v1/usage", headers={"X-API-Key": secrets[0]}).json()["data"]
    assert usage["request_count"] == 6


def test_by_day_over_30_days_and_a_given_range(api_client, clock):
    _, _, secrets = every_outcome(api_client, clock)
    usage_flush()
    clock.move_to(datetime(2026, 3, 12, 9, tzinfo=UTC))
    account = history(api_client, secrets[0], granularity="day")
    assert len(account["data"]) == 30
    assert account["data"][-3]["start"] == "2026-03-10T00:00:00Z"
    assert account["data"][-3]["end"] == "2026-03-11T00:00:00Z"
    assert account["data"][-3]["requests"] == 6
    assert account["meta"]["end"] == "2026-03-13T00:00:00Z"
    week = history(api_client, secrets[0], granularity="day", period="7d")
    assert len(week["data"]) == 7
    hours = history(api_client, secrets[0], start="2026-03-10T13:30:00Z", end="2026-03-10T15:00Z")
    assert [row["start"] for row in hours["data"]] == [
        "2026-03-10T13:00:00Z",
        "2026-03-10T14:00:00Z",
    ]
    assert [row["requests"] for row in hours["data"]] == [0, 6]
    days = history(api_client, secrets[0], granularity="day", start="2026-03-10")
    assert [row["requests"] for row in days["data"]] == [6, 0, 0]


def test_a_revoked_keys_history_stays_readable_with_another_key(api_client, clock):
    _, keys, secrets = every_outcome(api_client, clock)
    usage_flush()
    key_revoke(key=keys[0])
    body = history(api_client, secrets[1], key=str(keys[0].pk))
    assert body["meta"]["totals"]["requests"] == 3
    history(api_client, secrets[0], status=401)  # the revoked key itself is refused


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"granularity": "week"}, "granularity"),
        ({"period": "1y"}, "period"),
        ({"period": "24h", "start": "2026-03-10"}, "period"),
        ({"end": "2026-03-10"}, "start"),
        ({"start": "yesterday"}, "start"),
        ({"start": "2026-03-10T15:00:00+05:00", "end": "2026-03-10T08:00Z"}, "end"),
        ({"start": "2026-03-10", "end": "2026-03-12"}, "end"),  # the future
        ({"start": "2026-01-01"}, "start"),  # more than 744 hours
        ({"granularity": "day", "start": "2024-01-01"}, "start"),  # more than 366 days
        ({"start": "1999-12-31"}, "start"),
        ({"key": "-1"}, "key"),
        ({"key": "9" * 40}, "key"),
        ({"foo": "1"}, "foo"),
        ({"start": "2026-03-10" + "0" * 60}, "start"),
        # issue 36.3: each was a 500 (ValueError, OverflowError)
        ({"key": "²"}, "key"),
        ({"key": "①"}, "key"),
        ({"start": "9999-12-31T23:30:00Z", "end": "9999-12-31T23:59:00Z"}, "start"),
        ({"start": "2026-03-10", "end": "9999-12-31T23:59:00Z"}, "end"),
        ({"start": "2026-03-01", "end": "9999-12-31T23:59:59-23:59"}, "end"),
    ],
)
def test_bad_parameters_are_a_400_problem_naming_the_parameter(
    api_client, key_and_secret, clock, params, parameter
):
    body = history(api_client, key_and_secret[1], status=400, **params)
    assert body["type"] == "/problems/invalid-parameter"
    assert body["errors"][0]["parameter"] == parameter


def test_a_repeated_parameter_is_a_400(api_client, key_and_secret, clock):
    response = api_client.get(
        "/v1/usage/history?period=24h&period=7d", headers={"X-API-Key": key_and_secret[1]}
    )
    assert response.status_code == 400


def test_another_accounts_key_is_a_404_like_an_unknown_one(api_client, key_and_secret, clock):
    other, _ = key_create(account=AccountFactory(), label="theirs")
    secret = key_and_secret[1]
    assert history(api_client, secret, status=404, key=str(other.pk))["status"] == 404
    assert history(api_client, secret, status=404, key="999999")["status"] == 404


def test_without_a_key_it_is_the_opaque_401(api_client):
    assert api_client.get("/v1/usage/history").status_code == 401


@pytest.mark.parametrize(
    "query",
    [
        "start=9999-12-31T23:30:00Z&end=9999-12-31T23:59:00Z",
        "start=2026-03-10&end=9999-12-31T23:59:00Z",
        "by=hour&start=2026-03-01&end=9999-12-31T23:59:59-23:59",
        "start=9999-12-31T23:59:59.999999-23:59:59",
    ],
)
def test_the_dashboard_csvs_answer_a_range_past_the_calendar_with_a_400(
    key_and_secret, clock, query
):
    """Issue 36.3: the same values on the CSV downloads were an HTML 500; now the
    dashboard's plain-text 400 naming the parameter, as for any bad range."""
    key = key_and_secret[0]
    browser = Client()
    browser.force_login(key.account.owner)
    for path in ("/usage/usage.csv", f"/usage/keys/{key.pk}/usage.csv"):
        response = browser.get(f"{path}?{query}")
        assert response.status_code == 400, (path, response.content[:200])
        assert response["Content-Type"].startswith("text/plain")
        assert response.content.decode().split(":")[0] in ("start", "end")


def test_the_dashboard_csv_holds_the_same_numbers(api_client, clock):
    account, keys, secrets = every_outcome(api_client, clock)
    usage_flush()
    browser = Client()
    browser.force_login(account.owner)
    for by, period in (("hour", "24h"), ("day", "30d"), ("day", "7d")):
        text = browser.get(f"/usage/usage.csv?by={by}&period={period}").content.decode()
        rows = list(csv.reader(io.StringIO(text)))[1:]
        api = history(api_client, secrets[1], granularity=by, period=period)["data"]
        totals = [r for r in rows if r[1] == "all"]
        assert len(totals) == len(api)
        for row, point in zip(totals, api, strict=True):
            stamp = point["start"] if by == "hour" else point["start"][:10]
            assert row[0] == stamp
            outcomes = [point[n] for n in ("requests", "quota_429", "burst_429", "failed_5xx")]
            assert [int(n) for n in row[3:]] == outcomes
        for key in keys:
            per_key = history(
                api_client, secrets[1], granularity=by, period=period, key=str(key.pk)
            )
            csv_rows = {r[0]: [int(n) for n in r[3:]] for r in rows if r[1] == str(key.pk)}
            for point in per_key["data"]:
                stamp = point["start"] if by == "hour" else point["start"][:10]
                if stamp in csv_rows:
                    assert csv_rows[stamp] == [
                        point[n] for n in ("requests", "quota_429", "burst_429", "failed_5xx")
                    ]
                else:  # before the key existed: no CSV row, nothing in the API either
                    assert point["requests"] == point["failed_5xx"] == 0
    assert T0.hour == 14
