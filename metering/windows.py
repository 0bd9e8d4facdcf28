"""Quota windows (spec 8.1, 8.4). Pure: no I/O, time is always passed in.

Time is counted in whole hours since the Unix epoch ("hour numbers"): usage is kept in
hourly steps, so every window boundary falls on the top of an hour.

- **day** (Taster, and any custom daily window): a rolling 24 hours in hourly steps.
  At any instant the window holds the current hour and the 23 before it; each hour's
  requests leave it when that hour is 24 hours old (spec 8.1: no reset at midnight,
  allowance frees as each hour ages out). Allowance next frees at the top of the next
  hour (spec 8.4).
- **month** (paid tiers): the billing period. Periods start at the account's billing
  anchor, floored to the top of its hour, and renew on the same day of each month at
  that hour, clamped to the month's last day (Jan 31 -> Feb 28/29 -> Mar 31). Flooring
  to the hour keeps periods made of whole hourly steps, so a count rebuilt from the
  hourly history is exact. Allowance next frees on renewal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from accounts.tiers import TierLimits, WindowKind
from core.calendar import (
    DAY_HOURS,
    DAY_SECONDS,
    billing_period,
    hour_of,
    hour_start,
)


@dataclass(frozen=True, slots=True)
class Window:
    """The quota window in force for one account at one instant.

    ``hour`` is the current hour number. ``start_hour`` is the first hour of the billing
    period on a monthly window and ``None`` on the rolling day. ``resets_at`` is when
    allowance next frees up (the top of the next hour, or the renewal) and ``seconds``
    the window's length (86,400, or the current period's length).
    """

    kind: WindowKind
    quota: int
    hour: int
    start_hour: int | None
    resets_at: datetime
    seconds: int

    @property
    def first_hour(self) -> int:
        """The oldest hour whose requests count in this window."""
        if self.start_hour is None:
            return self.hour - DAY_HOURS + 1
        return self.start_hour


def window_at(limits: TierLimits, anchor: datetime | None, now: datetime) -> Window:
    """The window of an account with ``limits`` and billing ``anchor`` at ``now``."""
    return _window_in_hour(limits, anchor, hour_of(now))


@lru_cache(maxsize=4096)
def _window_in_hour(limits: TierLimits, anchor: datetime | None, hour: int) -> Window:
    # Every boundary falls on the top of an hour, so the window is the same all hour
    # long: cached per hour, the calendar arithmetic runs once per account and hour.
    if limits.window == "day":
        return Window(
            kind="day",
            quota=limits.quota,
            hour=hour,
            start_hour=None,
            resets_at=hour_start(hour + 1),
            seconds=DAY_SECONDS,
        )
    start, end = billing_period(anchor, hour_start(hour))
    return Window(
        kind="month",
        quota=limits.quota,
        hour=hour,
        start_hour=hour_of(start),
        resets_at=end,
        seconds=int((end - start).total_seconds()),
    )


def day_used(counts: Mapping[int, int], hour: int) -> int:
    """Requests counted in the rolling day ending in ``hour`` (``counts``: hour -> n)."""
    return sum(n for h, n in counts.items() if hour - DAY_HOURS < h <= hour)


def day_frees_at(counts: Mapping[int, int], hour: int, quota: int, units: int = 1) -> datetime:
    """When a request of ``units`` units will next be admitted on a full rolling day: the
    first top of an hour at which enough counted hours have aged out to leave room for
    them (assuming no other traffic meanwhile). With a quota below ``units`` nothing is
    ever admitted; the answer is then the moment the whole window has aged out."""
    for ahead in range(1, DAY_HOURS + 1):
        if day_used(counts, hour + ahead) + units <= quota:
            return hour_start(hour + ahead)
    return hour_start(hour + DAY_HOURS)


def day_releases(counts: Mapping[int, int], hour: int) -> list[tuple[datetime, int]]:
    """When the requests counted in the rolling day ending in ``hour`` leave it, soonest
    first, as ``(moment, requests)``: each hour's requests free up at the top of the
    hour 24 hours after theirs (spec 8.1: allowance frees as each hour ages out, no
    reset at midnight). Hours without requests are left out."""
    return [
        (hour_start(h + DAY_HOURS), counts[h])
        for h in range(hour - DAY_HOURS + 1, hour + 1)
        if counts.get(h, 0) > 0
    ]
