"""Calendar arithmetic the apps share (pure: no I/O, time is always passed in).

Time is counted in whole hours since the Unix epoch ("hour numbers"): usage is kept in
hourly steps, so every window boundary falls on the top of an hour. Billing periods
(spec 8.1) start at an account's billing anchor, floored to the top of its hour, and
renew on the same day of each month at that hour, clamped to the month's last day
(Jan 31 -> Feb 28/29 -> Mar 31). The accounts app shows periods with it and the
metering app builds its quota windows on it (metering/windows.py): a base-layer
module, so neither imports the other for it (issue 37).
"""

from __future__ import annotations

import calendar
from datetime import UTC, datetime, timedelta

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
US = timedelta(microseconds=1)
HOUR_US = 3_600_000_000
DAY_HOURS = 24
DAY_SECONDS = DAY_HOURS * 3600


def to_us(moment: datetime) -> int:
    """Microseconds since the epoch, exactly (no float rounding)."""
    return (moment - EPOCH) // US


def hour_of(moment: datetime) -> int:
    return to_us(moment) // HOUR_US


def hour_start(hour: int) -> datetime:
    return EPOCH + timedelta(hours=hour)


def floor_hour(moment: datetime) -> datetime:
    return hour_start(hour_of(moment))


def add_months(moment: datetime, months: int) -> datetime:
    """``moment`` moved by ``months`` calendar months, the day clamped to the target
    month's last day (Jan 31 + 1 month = Feb 28 or 29)."""
    index = moment.year * 12 + moment.month - 1 + months
    year, month = divmod(index, 12)
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def billing_period(anchor: datetime | None, now: datetime) -> tuple[datetime, datetime]:
    """``(start, end)`` of the billing period holding ``now``.

    Renewals are counted from the anchor itself (never chained), so a Jan 31 anchor
    renews on Feb 28 and then Mar 31. Without an anchor, periods are calendar months
    (UTC). A ``now`` before the anchor (a host whose clock lags the one that set it)
    falls in the first period.
    """
    origin = floor_hour(anchor) if anchor is not None else EPOCH
    months = (now.year - origin.year) * 12 + now.month - origin.month
    start = add_months(origin, months)
    if start > now:
        months -= 1
    months = max(months, 0)
    return add_months(origin, months), add_months(origin, months + 1)


def seconds_until(moment: datetime, now: datetime) -> int:
    """Whole seconds from ``now`` to ``moment``, rounded up and at least 1 (spec 7:
    Retry-After is never 0 while waiting is needed)."""
    return max(1, _ceil_div(to_us(moment) - to_us(now), 1_000_000))


def epoch_seconds(moment: datetime) -> int:
    """``moment`` as a Unix timestamp, rounded up to the whole second."""
    return _ceil_div(to_us(moment), 1_000_000)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)
