"""core/calendar.py: calendar months, billing periods, whole seconds (spec 8.1, 8.4)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.calendar import add_months, billing_period, epoch_seconds, seconds_until


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
