"""Usage pages (issue 5.5; spec 2.3, 8.1): the account's window, per-key history that
survives rotation, hourly and daily SVG charts, CSV downloads."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from keys.services import key_create, key_rotate
from metering.history import usage_flush

pytestmark = pytest.mark.django_db


def call_api(secret: str, times: int = 1) -> None:
    client = APIClient()
    for _ in range(times):
        response = client.get("/v1/foods", {"q": "apple"}, headers={"X-API-Key": secret})
        assert response.status_code == 200, response.content


def bar_values(page: str, chart_id: str) -> list[int]:
    svg = re.search(rf'<svg[^>]*aria-labelledby="{chart_id}-title.*?</svg>', page, re.S).group(0)
    return [int(n) for n in re.findall(r"<title>[^<]*: (\d+) requests</title>", svg)]


def test_usage_page_shows_the_window_and_hourly_and_daily_bars(owner_client, verified, clock):
    _, secret = key_create(account=verified, label="a")
    call_api(secret, 3)
    usage_flush()
    page = owner_client.get("/usage/").content.decode()
    assert "3</strong> of 250 requests used" in page
    hourly = bar_values(page, "chart-hourly")
    assert len(hourly) == 24 and hourly[-1] == 3 and sum(hourly) == 3
    assert 'aria-current="page">24 h</a>' in page
    assert "usage.csv?by=hour&amp;period=24h" in page
    for name, days in (("7d", 7), ("30d", 30)):  # the range switch (issue 29.5)
        page = owner_client.get(f"/usage/?range={name}").content.decode()
        daily = bar_values(page, "chart-daily")
        assert len(daily) == days and daily[-1] == 3 and sum(daily) == 3
        assert f"usage.csv?by=day&amp;period={name}" in page
    assert owner_client.get("/usage/?range=1y").status_code == 400


def test_account_charts_add_up_every_key(owner_client, verified, clock):
    _, first = key_create(account=verified, label="a")
    _, second = key_create(account=verified, label="b")
    call_api(first, 2)
    clock.shift(3600)
    call_api(second, 1)
    usage_flush()
    hourly = bar_values(owner_client.get("/usage/").content.decode(), "chart-hourly")
    assert hourly[-2:] == [2, 1]


def test_keys_page_shows_each_keys_requests_in_the_window(owner_client, verified, clock):
    busy, secret = key_create(account=verified, label="busy")
    idle, _ = key_create(account=verified, label="idle")
    call_api(secret, 4)
    usage_flush()
    page = owner_client.get("/keys/").content.decode()
    busy_row = re.search(rf'<tr id="key-{busy.pk}">.*?</tr>', page, re.S).group(0)
    idle_row = re.search(rf'<tr id="key-{idle.pk}">.*?</tr>', page, re.S).group(0)
    assert 'window">4</td>' in busy_row and 'window">0</td>' in idle_row


def test_key_history_survives_rotation(owner_client, verified, clock):
    key, secret = key_create(account=verified, label="server")
    call_api(secret, 2)
    clock.shift(3600)
    _, new = key_rotate(key=key)
    call_api(new, 1)
    usage_flush()
    page = owner_client.get(f"/usage/keys/{key.pk}/").content.decode()
    assert bar_values(page, "chart-hourly")[-2:] == [2, 1]
    assert "History kept across rotations" in page


def test_a_paid_accounts_first_day_has_thirty_day_bars(owner_client, verified, clock):
    """Issue 29: the daily chart of a billing period one day old was one wide bar."""
    from accounts.services import account_set_tier

    account_set_tier(account=verified, tier="sous_chef")
    key_create(account=verified, label="a")
    page = owner_client.get("/usage/?range=30d").content.decode()
    assert len(bar_values(page, "chart-daily")) == 30
    assert "No requests in this range yet." in page


def test_charts_are_accessible_images_with_a_data_table(owner_client, verified):
    key_create(account=verified, label="a")
    page = owner_client.get("/usage/").content.decode()
    assert 'role="img"' in page and "<desc id=" in page
    assert "Show the numbers" in page


def test_usage_csv_lists_each_keys_days(owner_client, verified, clock):
    key, secret = key_create(account=verified, label="=cmd|' /C calc'!A0")
    call_api(secret, 2)
    usage_flush()
    response = owner_client.get("/usage/usage.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith(
        'attachment; filename="foodservice-usage-day-'
    )
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == [
        "date_utc",
        "key_id",
        "key_label",
        "requests",
        "quota_429",
        "burst_429",
        "failed_5xx",
    ]
    # No rows from before the key existed; one key, so no "all" rows.
    assert rows[1:] == [["2026-03-10", str(key.pk), "'=cmd|' /C calc'!A0", "2", "0", "0", "0"]]


def test_usage_csv_by_hour(owner_client, verified, clock):
    key, secret = key_create(account=verified, label="a")
    call_api(secret, 1)
    usage_flush()
    rows = list(
        csv.reader(io.StringIO(owner_client.get("/usage/usage.csv?by=hour").content.decode()))
    )
    assert rows[0][0] == "hour_utc"
    assert rows[1:] == [["2026-03-10T14:00:00Z", str(key.pk), "a", "1", "0", "0", "0"]]


def test_csv_starts_at_each_keys_creation_and_adds_keys_up(owner_client, verified, clock):
    old, old_secret = key_create(account=verified, label="old")
    call_api(old_secret, 1)
    clock.shift(2 * 3600)
    new, new_secret = key_create(account=verified, label="new")
    call_api(new_secret, 2)
    call_api(old_secret, 1)
    usage_flush()
    rows = list(
        csv.reader(io.StringIO(owner_client.get("/usage/usage.csv?by=hour").content.decode()))
    )
    by_key = {(r[0], r[1]): r[3] for r in rows[1:]}
    old_rows = [r for r in rows[1:] if r[1] == str(old.pk)]
    new_rows = [r for r in rows[1:] if r[1] == str(new.pk)]
    assert [r[0] for r in old_rows] == [f"2026-03-10T{h}:00:00Z" for h in (14, 15, 16)]
    assert [r[0] for r in new_rows] == ["2026-03-10T16:00:00Z"]
    totals = [r for r in rows[1:] if r[1] == "all"]
    assert len(totals) == 24 and {r[2] for r in totals} == {"All keys"}
    assert by_key[("2026-03-10T16:00:00Z", "all")] == "3"
    assert by_key[("2026-03-10T14:00:00Z", "all")] == "1"
    week = owner_client.get("/usage/usage.csv?by=day&period=7d").content.decode()
    assert week.splitlines()[-1] == "2026-03-10,all,All keys,4,0,0,0"
    assert owner_client.get("/usage/usage.csv?period=1y").status_code == 400


def test_the_csv_reads_the_history_once_for_keys_and_totals(owner_client, verified, clock):
    for label in ("a", "b", "c"):
        _, secret = key_create(account=verified, label=label)
        call_api(secret, 1)
    usage_flush()
    with CaptureQueriesContext(connection) as queries:
        body = owner_client.get("/usage/usage.csv?by=hour").content.decode()
    assert body.count(",all,All keys,3,") == 1
    history = [q for q in queries.captured_queries if "metering_keyusagehour" in q["sql"]]
    assert len(history) == 1


def test_usage_csv_refuses_an_unknown_granularity(owner_client):
    response = owner_client.get("/usage/usage.csv?by=week")
    assert response.status_code == 400 and b"by must be day or hour" in response.content


def test_key_csv_has_only_that_key(owner_client, verified, clock):
    key, _ = key_create(account=verified, label="a")
    other, _ = key_create(account=verified, label="b")
    rows = list(
        csv.reader(
            io.StringIO(owner_client.get(f"/usage/keys/{key.pk}/usage.csv").content.decode())
        )
    )
    assert {r[1] for r in rows[1:]} == {str(key.pk)}
    assert str(other.pk) not in {r[1] for r in rows[1:]}


def test_overview_and_plan_show_the_live_usage(owner_client, verified, clock):
    _, secret = key_create(account=verified, label="a")
    call_api(secret, 5)  # not flushed: the headline comes from the live meter
    assert "5</strong> of 250 requests used" in owner_client.get("/plan/").content.decode()
    assert "5</strong> of 250 requests used" in owner_client.get("/").content.decode()


def _release_rows(page: str) -> list[tuple[str, int]]:
    table = re.search(r'<details class="data-table" id="releases">.*?</details>', page, re.S)
    rows = re.findall(r'<time datetime="([^"]+)">[^<]*</time></td><td class="num">(\d+)<', table[0])
    return [(stamp, int(n)) for stamp, n in rows]


def test_taster_frees_up_text_follows_the_meterings_rolling_schedule(owner_client, verified, clock):
    """Spec 8.1: each hour's requests leave the rolling day 24 hours after their hour.
    The page's words and its table are the schedule of ``metering.windows``."""
    from core.calendar import hour_of
    from metering.models import KeyUsageHour
    from metering.windows import day_releases

    _, secret = key_create(account=verified, label="a")
    call_api(secret, 3)  # 10 Mar 14:25
    clock.shift(3600)
    call_api(secret, 2)  # 15:25
    clock.shift(2 * 3600)
    call_api(secret, 1)  # 17:25
    usage_flush()
    page = owner_client.get("/usage/").content.decode()
    assert "3 requests free up at 14:00 on 11 Mar, 2 at 15:00 and 1 at 17:00 UTC" in page
    counts = {hour_of(r.hour): r.count for r in KeyUsageHour.objects.all()}
    schedule = day_releases(counts, hour_of(timezone.now()))
    assert _release_rows(page) == [(at.isoformat(), n) for at, n in schedule]
    assert _release_rows(page)[0] == ("2026-03-11T14:00:00+00:00", 3)

    # A day after the first hour, its 3 requests have left the window; nothing else has.
    clock.move_to(dt.datetime(2026, 3, 11, 14, 5, tzinfo=dt.UTC))
    page = owner_client.get("/").content.decode()
    assert "3</strong> of 250 requests used" in page
    assert "2 requests free up at 15:00 on 11 Mar and 1 request" not in page
    assert "2 requests free up at 15:00 on 11 Mar and 1 at 17:00 UTC" in page


def test_the_frees_up_schedule_adds_up_to_the_live_count(owner_client, verified, clock):
    _, secret = key_create(account=verified, label="a")
    call_api(secret, 2)
    usage_flush()
    clock.shift(3600)
    call_api(secret, 4)  # not flushed yet: only in the meter's buckets
    page = owner_client.get("/usage/").content.decode()
    assert "6</strong> of 250 requests used" in page
    assert "2 requests free up at 14:00 on 11 Mar and 4 at 15:00 UTC" in page


def test_a_paid_plan_shows_its_renewal_not_hourly_releases(owner_client, verified, clock):
    from accounts.services import account_set_tier

    account_set_tier(account=verified, tier="sous_chef")
    _, secret = key_create(account=verified, label="a")
    call_api(secret, 2)
    usage_flush()
    page = owner_client.get("/usage/").content.decode()
    assert "free up at" not in page and 'id="releases"' not in page
    assert "Renews 10 Apr 2026, 14:00 UTC" in page


def outcome_rows(page: str, chart_id: str) -> list[list[int]]:
    """The numbers table of a stacked chart: per bar, [admitted, quota, burst, failed]."""
    figure = re.search(rf'aria-labelledby="{chart_id}-title.*?</figure>', page, re.S).group(0)
    table = re.search(r"<tbody>(.*?)</tbody>", figure, re.S).group(1)
    return [
        [int(n) for n in re.findall(r'<td class="num">(\d+)</td>', row)]
        for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)
    ]


def test_charts_stack_admitted_refused_and_failed_requests(owner_client, verified, clock):
    """Issue 16.1: every outcome per key and for the account; only admitted counts."""
    from accounts.services import account_set_tier
    from accounts.tiers import TierLimits

    account_set_tier(
        account=verified,
        tier="executive_chef",
        custom=TierLimits(quota=12, window="day", rate=1.0, burst=10),
    )
    first, first_secret = key_create(account=verified, label="a")
    _, second_secret = key_create(account=verified, label="b")
    client = APIClient()
    statuses = [
        client.get("/v1/foods", {"q": "apple"}, headers={"X-API-Key": first_secret}).status_code
        for _ in range(13)
    ]
    assert statuses == [200] * 10 + [429] * 3  # the burst of 10, then burst 429s
    clock.shift(5)  # 5 tokens back; the quota has 2 left
    statuses = [
        client.get("/v1/foods", {"q": "apple"}, headers={"X-API-Key": second_secret}).status_code
        for _ in range(4)
    ]
    assert statuses == [200, 200, 429, 429]  # then quota 429s
    usage_flush()

    page = owner_client.get("/usage/").content.decode()
    assert "12</strong> of 12 requests used" in page  # the refused never count
    assert outcome_rows(page, "chart-hourly")[-1] == [12, 2, 3, 0]
    daily = owner_client.get("/usage/?range=7d").content.decode()
    assert outcome_rows(daily, "chart-daily")[-1] == [12, 2, 3, 0]
    assert bar_values(page, "chart-hourly")[-1] == 17  # the bar: every request
    legend = re.search(r'<ul class="legend".*?</ul>', page, re.S).group(0)
    assert [re.sub(r"<[^>]+>", "", li).split() for li in re.findall(r"<li>.*?</li>", legend)] == [
        ["Admitted", "12"],
        ["Quota", "429", "2"],
        ["Burst", "429", "3"],
        ["Failed", "(5xx)", "0"],
    ]
    assert 'class="bar bar--burst"' in page and 'class="bar bar--quota"' in page

    by_key = re.search(r'id="per-key-heading".*?</table>', page, re.S).group(0)
    cells = [
        [int(n.replace(",", "")) for n in re.findall(r'<td class="num"[^>]*>([\d,]+)</td>', row)]
        for row in re.findall(r"<tr>(.*?)</tr>", by_key, re.S)[1:]
    ]
    assert cells == [[10, 0, 3, 0], [2, 2, 0, 0]]  # keys a, b this window

    key_page = owner_client.get(f"/usage/keys/{first.pk}/").content.decode()
    assert outcome_rows(key_page, "chart-hourly")[-1] == [10, 0, 3, 0]

    rows = list(
        csv.reader(io.StringIO(owner_client.get("/usage/usage.csv?by=hour").content.decode()))
    )
    assert [r[3:] for r in rows[1:] if r[0] == "2026-03-10T14:00:00Z"] == [
        ["10", "0", "3", "0"],
        ["2", "2", "0", "0"],
        ["12", "2", "3", "0"],  # all keys
    ]
