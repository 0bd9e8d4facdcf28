"""Which quota alerts are due (pure): thresholds, and what "once per window" means on a
rolling day and on a billing period."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from accounts.tiers import TierLimits
from core.calendar import hour_start
from metering.alerts.thresholds import alert_window_start, due, reached
from metering.windows import window_at

T = datetime(2026, 3, 10, 14, 25, tzinfo=UTC)
DAY = TierLimits(quota=250, window="day", rate=None, burst=None)
MONTH = TierLimits(quota=1000, window="month", rate=None, burst=None)
ANCHOR = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("used", "quota", "expected"),
    [
        (0, 250, ()),
        (199, 250, ()),
        (200, 250, (80,)),
        (249, 250, (80,)),
        (250, 250, (80, 100)),
        (900, 250, (80, 100)),  # over (a lowered quota)
        (7, 9, ()),  # 77.8 %
        (8, 9, (80,)),  # 88.9 %: rounding never hides a crossing
        (0, 0, ()),  # a quota of 0 has nothing to warn about
        (5, 0, ()),
    ],
)
def test_reached(used, quota, expected):
    assert reached(used=used, quota=quota) == expected


def test_rolling_day_alert_covers_24_hours_from_its_hour():
    sent_at = window_at(DAY, None, T)
    start = alert_window_start(sent_at)
    assert start == datetime(2026, 3, 10, 14, tzinfo=UTC)
    for hours_later, expected in [(0, ()), (5, ()), (23, ()), (24, (80,)), (30, (80,))]:
        later = window_at(DAY, None, hour_start(sent_at.hour + hours_later))
        assert due(used=200, quota=250, window=later, last={80: start}) == expected


def test_billing_period_alert_covers_the_period_only():
    window = window_at(MONTH, ANCHOR, T)
    start = alert_window_start(window)
    assert start == datetime(2026, 3, 1, 9, tzinfo=UTC)  # the period's first hour
    assert due(used=800, quota=1000, window=window, last={80: start}) == ()
    assert due(used=1000, quota=1000, window=window, last={80: start}) == (100,)
    renewed = window_at(MONTH, ANCHOR, datetime(2026, 4, 1, 9, tzinfo=UTC))
    assert due(used=800, quota=1000, window=renewed, last={80: start}) == (80,)


def test_nothing_sent_yet_means_every_reached_threshold_is_due():
    window = window_at(DAY, None, T)
    assert due(used=250, quota=250, window=window, last={}) == (80, 100)
