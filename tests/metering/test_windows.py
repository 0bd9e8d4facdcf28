"""metering/windows.py: hourly steps, the rolling day, billing months (spec 8.1, 8.4)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from accounts.tiers import TierLimits
from core.calendar import (
    add_months,
    billing_period,
    epoch_seconds,
    hour_of,
    hour_start,
    seconds_until,
)
from metering.windows import day_frees_at, day_releases, day_used, window_at

TASTER = TierLimits(quota=250, window="day", rate=1.0, burst=10)
SOUS = TierLimits(quota=250_000, window="month", rate=10.0, burst=50)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("moment", "months", "expected"),
    [
        (utc(2026, 1, 15, 9), 1, utc(2026, 2, 15, 9)),
        (utc(2026, 1, 31, 9), 1, utc(2026, 2, 28, 9)),  # clamped to February's end
        (utc(2028, 1, 31, 9), 1, utc(2028, 2, 29, 9)),  # leap year
        (utc(2026, 1, 31, 9), 2, utc(2026, 3, 31, 9)),  # counted from the anchor, not chained
        (utc(2026, 3, 31, 9), 1, utc(2026, 4, 30, 9)),
        (utc(2026, 12, 10, 9), 1, utc(2027, 1, 10, 9)),  # across the year
        (utc(2026, 5, 31, 9), -3, utc(2026, 2, 28, 9)),
    ],
)
def test_add_months_clamps_to_the_last_day_of_the_month(moment, months, expected):
    assert add_months(moment, months) == expected


@pytest.mark.parametrize(
    ("anchor", "now", "start", "end"),
    [
        # inside the first period
        (utc(2026, 3, 10, 14, 25), utc(2026, 3, 20), utc(2026, 3, 10, 14), utc(2026, 4, 10, 14)),
        # the anchor is floored to its hour: periods are whole hourly steps
        (
            utc(2026, 3, 10, 14, 25),
            utc(2026, 3, 10, 14, 5),
            utc(2026, 3, 10, 14),
            utc(2026, 4, 10, 14),
        ),
        # renewal: at the boundary the new period starts
        (utc(2026, 3, 10, 14), utc(2026, 4, 10, 14), utc(2026, 4, 10, 14), utc(2026, 5, 10, 14)),
        (
            utc(2026, 3, 10, 14),
            utc(2026, 4, 10, 13, 59, 59),
            utc(2026, 3, 10, 14),
            utc(2026, 4, 10, 14),
        ),
        # month-end anchors: Jan 31 -> Feb 28 -> Mar 31
        (utc(2026, 1, 31, 8), utc(2026, 2, 28, 7), utc(2026, 1, 31, 8), utc(2026, 2, 28, 8)),
        (utc(2026, 1, 31, 8), utc(2026, 3, 1), utc(2026, 2, 28, 8), utc(2026, 3, 31, 8)),
        (utc(2026, 1, 31, 8), utc(2026, 4, 2), utc(2026, 3, 31, 8), utc(2026, 4, 30, 8)),
        # many months later
        (utc(2024, 2, 29, 0), utc(2026, 3, 15), utc(2026, 2, 28, 0), utc(2026, 3, 29, 0)),
        # no anchor: calendar months
        (None, utc(2026, 3, 10, 14, 25), utc(2026, 3, 1), utc(2026, 4, 1)),
        # a clock lagging the host that set the anchor: the first period
        (
            utc(2026, 3, 10, 14),
            utc(2026, 3, 10, 13, 59),
            utc(2026, 3, 10, 14),
            utc(2026, 4, 10, 14),
        ),
    ],
)
def test_billing_period_holding_now(anchor, now, start, end):
    assert billing_period(anchor, now) == (start, end)


def test_rolling_day_window_resets_at_the_top_of_the_next_hour():
    window = window_at(TASTER, None, utc(2026, 3, 10, 14, 25, 7))
    assert window.kind == "day"
    assert window.resets_at == utc(2026, 3, 10, 15)
    assert window.seconds == 86_400
    assert window.start_hour is None
    assert hour_start(window.first_hour) == utc(2026, 3, 9, 15)


def test_monthly_window_resets_on_renewal_and_spans_the_period():
    window = window_at(SOUS, utc(2026, 2, 10, 9, 30), utc(2026, 3, 1))
    assert window.kind == "month"
    assert hour_start(window.start_hour) == utc(2026, 2, 10, 9)
    assert window.resets_at == utc(2026, 3, 10, 9)
    assert window.seconds == 28 * 86_400


H = hour_of(utc(2026, 3, 10, 14, 25))


@pytest.mark.parametrize(
    ("counts", "hour", "used"),
    [
        ({H: 5, H - 23: 7}, H, 12),  # the 24 hours ending in the current one
        ({H: 5, H - 24: 7}, H, 5),  # 24 hours old: aged out
        ({H - 23: 7}, H + 1, 0),  # ages out at the top of the next hour
        ({H + 1: 3}, H, 0),  # the future does not count
    ],
)
def test_rolling_day_counts_the_current_hour_and_the_23_before(counts, hour, used):
    assert day_used(counts, hour) == used


@pytest.mark.parametrize(
    ("counts", "quota", "frees_at"),
    [
        # the oldest hour holds everything: it ages out at H-20+24
        ({H - 20: 250}, 250, hour_start(H + 4)),
        # allowance frees as each hour ages out: the first hour frees enough
        ({H - 23: 1, H - 10: 249}, 250, hour_start(H + 1)),
        # the first hours free too little: wait for the hour that makes room
        ({H - 23: 0, H - 22: 0, H - 5: 100, H: 150}, 250, hour_start(H + 19)),
        ({H: 250}, 250, hour_start(H + 24)),
        # a quota of 0 never admits: the whole window's end
        ({}, 0, hour_start(H + 24)),
    ],
)
def test_full_rolling_day_frees_when_enough_hours_have_aged_out(counts, quota, frees_at):
    assert day_frees_at(counts, H, quota) == frees_at


@pytest.mark.parametrize(
    ("moment", "now", "seconds"),
    [
        (utc(2026, 3, 10, 15), utc(2026, 3, 10, 14, 25), 35 * 60),
        (utc(2026, 3, 10, 15), utc(2026, 3, 10, 14, 59, 59, 999_999), 1),  # rounded up
        (utc(2026, 3, 10, 15), utc(2026, 3, 10, 14, 59, 58, 500_000), 2),
        (utc(2026, 3, 10, 15), utc(2026, 3, 10, 15), 1),  # never 0
        (utc(2026, 3, 10, 15), utc(2026, 3, 10, 15, 0, 3), 1),
    ],
)
def test_seconds_until_rounds_up_and_is_never_zero(moment, now, seconds):
    assert seconds_until(moment, now) == seconds


def test_epoch_seconds_is_the_unix_time_rounded_up():
    assert epoch_seconds(utc(2026, 3, 10, 15)) == 1_773_154_800
    assert epoch_seconds(utc(2026, 3, 10, 15, 0, 0, 1)) == 1_773_154_801


@pytest.mark.parametrize(
    ("counts", "releases"),
    [
        ({}, []),
        # spec 8.1: each hour's requests leave 24 hours after the top of their hour
        ({H: 5}, [(hour_start(H + 24), 5)]),
        (
            {H - 23: 12, H - 5: 30, H: 1},
            [(hour_start(H + 1), 12), (hour_start(H + 19), 30), (hour_start(H + 24), 1)],
        ),
        # hours already out of the window, and empty hours, free nothing
        ({H - 24: 7, H - 2: 0, H - 1: 4}, [(hour_start(H + 23), 4)]),
    ],
)
def test_day_releases_say_when_each_counted_hour_frees_up(counts, releases):
    assert day_releases(counts, H) == releases
    assert sum(n for _, n in releases) == day_used(counts, H)
