"""Durable per-key usage history (spec 2.3): amortised writes, the dashboard's
selectors, and live counts rebuilt from history when the meter loses its state."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.services import account_set_tier
from keys.services import key_create
from metering.backends import meter_reset
from metering.history import usage_flush
from metering.models import KeyUsageHour
from metering.selectors import (
    account_usage,
    key_usage_daily,
    key_usage_hourly,
    key_usage_in_window,
)
from tests.conftest import T0
from tests.factories import AccountFactory
from tests.metering.test_api import read, usage
from tests.servers import redis_clear

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.metering.urls")]

HOUR = datetime(2026, 3, 10, 14, tzinfo=UTC)


def lose_meter_state() -> None:
    """What a Redis restart (or a process restart, in-process) does to the live counts."""
    if settings.METER_BACKEND == "redis":
        redis_clear()
    meter_reset()


def test_requests_write_no_history_until_flushed(api_client, key_and_secret, clock):
    key, secret = key_and_secret
    with CaptureQueriesContext(connection) as queries:
        [read(api_client, secret) for _ in range(3)]
    assert not [q for q in queries if "metering_keyusagehour" in q["sql"] and "INSERT" in q["sql"]]
    assert not KeyUsageHour.objects.exists()
    assert usage_flush() == 1
    row = KeyUsageHour.objects.get()
    assert (row.key_id, row.account_id, row.hour, row.count) == (key.pk, key.account_id, HOUR, 3)
    assert usage_flush() == 0


def test_flushes_add_up_per_key_and_hour(api_client, key_and_secret, clock):
    key, secret = key_and_secret
    other_key, other = key_create(account=key.account, label="other")
    [read(api_client, secret) for _ in range(2)]
    usage_flush()
    read(api_client, secret)
    read(api_client, other)
    clock.shift(3600)
    read(api_client, secret)
    usage_flush()
    rows = {(r.key_id, r.hour): r.count for r in KeyUsageHour.objects.all()}
    assert rows == {
        (key.pk, HOUR): 3,
        (other_key.pk, HOUR): 1,
        (key.pk, HOUR + timedelta(hours=1)): 1,
    }
    key.refresh_from_db()
    assert key.last_used_at == T0 + timedelta(hours=1)


def test_refused_requests_leave_no_history(api_client, key_and_secret, clock):
    _key, secret = key_and_secret
    [read(api_client, secret) for _ in range(15)]  # 10 admitted, 5 burst 429s
    usage_flush()
    assert KeyUsageHour.objects.get().count == 10


def test_history_of_a_deleted_account_is_dropped_not_retried(api_client, key_and_secret, clock):
    key, secret = key_and_secret
    read(api_client, secret)
    key.account.owner.delete()
    assert usage_flush() == 0
    assert usage_flush(sweep=True) == 0
    assert not KeyUsageHour.objects.exists()


def test_live_counts_are_rebuilt_from_history_after_the_meter_loses_them(
    api_client, key_and_secret, clock
):
    _key, secret = key_and_secret
    [read(api_client, secret) for _ in range(4)]
    clock.shift(2 * 3600)
    [read(api_client, secret) for _ in range(3)]
    usage_flush()
    lose_meter_state()
    assert usage(api_client, secret)["request_count"] == 7
    clock.shift(1)
    assert read(api_client, secret)["RateLimit-Remaining"] == str(250 - 8)


def test_losing_the_meter_loses_only_what_was_not_copied_and_the_copy_continues(
    api_client, key_and_secret, clock
):
    key, secret = key_and_secret
    [read(api_client, secret) for _ in range(4)]
    usage_flush()
    [read(api_client, secret) for _ in range(3)]  # counted by the meter, not copied yet
    lose_meter_state()
    assert usage(api_client, secret)["request_count"] == 4  # the loss bound: those 3
    read(api_client, secret)
    usage_flush()
    # The rebuilt meter continued the hour's bucket from the history (4), so the
    # absolute copy adds to it instead of overwriting it with 1.
    assert KeyUsageHour.objects.get(key=key).count == 5


def test_monthly_count_is_rebuilt_from_the_whole_billing_period(api_client, clock):
    paid = AccountFactory()
    account_set_tier(account=paid, tier="sous_chef", now=T0 - timedelta(days=20))
    _key, secret = key_create(account=paid, label="k")
    clock.move_to(T0 - timedelta(days=19))
    [read(api_client, secret) for _ in range(6)]
    clock.move_to(T0)
    [read(api_client, secret) for _ in range(2)]
    usage_flush()
    lose_meter_state()
    assert usage(api_client, secret)["request_count"] == 8


def test_hourly_series_is_24_zero_filled_hours(api_client, key_and_secret, clock):
    key, secret = key_and_secret
    clock.move_to(T0 - timedelta(hours=5))
    [read(api_client, secret) for _ in range(2)]
    clock.move_to(T0)
    read(api_client, secret)
    usage_flush()
    series = key_usage_hourly(key=key, now=T0)
    assert len(series) == 24
    assert series[0].start == HOUR - timedelta(hours=23)
    assert series[-1].start == HOUR
    assert [(p.start, p.count) for p in series if p.count] == [
        (HOUR - timedelta(hours=5), 2),
        (HOUR, 1),
    ]


def test_daily_series_covers_the_billing_period_so_far(api_client, clock):
    paid = account_set_tier(
        account=AccountFactory(), tier="sous_chef", now=datetime(2026, 3, 7, 22, 10, tzinfo=UTC)
    )
    key, secret = key_create(account=paid, label="k")
    for moment, n in [(datetime(2026, 3, 7, 23, tzinfo=UTC), 2), (T0, 3)]:
        clock.move_to(moment)
        [read(api_client, secret) for _ in range(n)]
    usage_flush()
    series = key_usage_daily(key=key, now=T0)
    assert [(p.start, p.count) for p in series] == [
        (date(2026, 3, 7), 2),
        (date(2026, 3, 8), 0),
        (date(2026, 3, 9), 0),
        (date(2026, 3, 10), 3),
    ]


def test_daily_series_on_the_rolling_day_is_the_last_30_days(key_and_secret):
    series = key_usage_daily(key=key_and_secret[0], now=T0)
    assert len(series) == 30
    assert series[-1].start == date(2026, 3, 10)
    assert {p.count for p in series} == {0}


def test_per_key_window_counts_and_account_usage(api_client, key_and_secret, clock):
    key, secret = key_and_secret
    other_key, other = key_create(account=key.account, label="other")
    idle_key, _ = key_create(account=key.account, label="idle")
    [read(api_client, secret) for _ in range(3)]
    read(api_client, other)
    usage_flush()
    assert key_usage_in_window(account=key.account, now=T0) == {
        key.pk: 3,
        other_key.pk: 1,
        idle_key.pk: 0,
    }
    summary = account_usage(account=key.account, now=T0)
    assert (summary.request_count, summary.remaining, summary.request_quota) == (4, 246, 250)
    assert summary.period_end == HOUR + timedelta(hours=1)
    assert summary.live
