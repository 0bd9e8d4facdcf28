"""metering/windows.py: hourly steps, the rolling day, billing months (spec 8.1, 8.4)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from accounts.tiers import TierLimits
from core.calendar import (
    hour_of,
    hour_start,
)
from metering.windows import day_frees_at, day_releases, day_used, window_at

TASTER = TierLimits(quota=250, window="day", rate=1.0, burst=10)
SOUS = TierLimits(quota=250_000, window="month", rate=10.0, burst=50)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


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
