"""Which slice of the usage history a reader asks for (issue 29.4): by hour or by UTC
day, over the last 24 hours, 7 days or 30 days, or a given range. Pure: no I/O; the
time is passed in.

One parser serves GET /v1/usage/history, the dashboard's charts and range switch and
its CSV downloads, so the three always describe the same buckets.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal

Granularity = Literal["hour", "day"]
GRANULARITIES: tuple[Granularity, ...] = ("hour", "day")
# Named periods, each ending with the current (partial) hour or day.
PERIODS: dict[str, timedelta] = {
    "24h": timedelta(hours=24),
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
}
DEFAULT_PERIOD: dict[Granularity, str] = {"hour": "24h", "day": "30d"}
# The most buckets one answer holds: 31 days of hours, 366 days.
MAX_BUCKETS: dict[Granularity, int] = {"hour": 31 * 24, "day": 366}
STEP: dict[Granularity, timedelta] = {"hour": timedelta(hours=1), "day": timedelta(days=1)}
PARAMETERS = ("granularity", "period", "start", "end", "key")


class RangeError(ValueError):
    """A parameter that does not describe a range: ``parameter`` names it."""

    def __init__(self, parameter: str, detail: str) -> None:
        super().__init__(detail)
        self.parameter = parameter
        self.detail = detail


@dataclass(frozen=True, slots=True)
class HistoryRange:
    """Buckets of ``granularity`` from ``start`` (included) to ``end`` (excluded), both
    aligned to the granularity, in UTC; ``key_id`` None means every key of the account."""

    granularity: Granularity
    start: datetime
    end: datetime
    key_id: int | None = None

    @property
    def step(self) -> timedelta:
        return STEP[self.granularity]

    def buckets(self) -> Iterator[datetime]:
        """The start of every bucket, oldest first."""
        at = self.start
        while at < self.end:
            yield at
            at += self.step

    def __len__(self) -> int:
        return int((self.end - self.start) / self.step)


def floor_to(moment: datetime, granularity: Granularity) -> datetime:
    """The start of the UTC hour or day holding ``moment``."""
    moment = moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    return moment.replace(hour=0) if granularity == "day" else moment


def period_range(
    period: str, *, granularity: Granularity, now: datetime, key_id: int | None = None
) -> HistoryRange:
    """The named ``period`` (``24h``, ``7d``, ``30d``) ending with the current hour or
    day: ``24h`` by hour is the last 24 hours, the current one last; ``7d`` by day is
    the last 7 UTC days, today last."""
    if period not in PERIODS:
        raise RangeError("period", f"Use one of {', '.join(PERIODS)}.")
    step = STEP[granularity]
    end = floor_to(now, granularity) + step
    count = max(1, PERIODS[period] // step)
    return _bounded(HistoryRange(granularity, end - count * step, end, key_id), "period")


def parse_range(params: Mapping[str, str], *, now: datetime) -> HistoryRange:
    """The range the query ``params`` describe; raises ``RangeError`` naming the first
    bad parameter.

    ``granularity``: ``hour`` (default) or ``day``. Either ``period`` (``24h``, ``7d``,
    ``30d``; default ``24h`` by hour, ``30d`` by day) or ``start`` with an optional
    ``end`` (ISO 8601 dates or date-times, UTC unless an offset is given; ``end``
    defaults to now): ``start`` is moved back to the start of its hour or day and
    ``end`` forward to the end of its, so a range is always whole buckets. At most 744
    hours or 366 days; nothing after the current hour or day, nothing before the year
    2000 (in UTC, once any offset is applied). ``key``: a key id in ASCII digits, or
    every key of the account when absent.

    Never raises anything but ``RangeError`` (issue 36.3): a moment ``datetime`` cannot
    hold once its offset is applied or its bucket rounded up (near 9999-12-31) is a
    ``RangeError`` too, and ``end`` is compared with the current hour before it is
    rounded up."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise RangeError(unknown[0], "Unknown parameter.")
    granularity = params.get("granularity", "hour")
    if granularity not in GRANULARITIES:
        raise RangeError("granularity", "Use hour or day.")
    key_id = _key_id(params.get("key"))
    if "start" not in params and "end" not in params:
        period = params.get("period", DEFAULT_PERIOD[granularity])
        return period_range(period, granularity=granularity, now=now, key_id=key_id)
    if "period" in params:
        raise RangeError("period", "Give either period or start and end, not both.")
    if "start" not in params:
        raise RangeError("start", "Required with end.")
    start = floor_to(_moment(params["start"], "start"), granularity)
    step = STEP[granularity]
    last = floor_to(now, granularity) + step
    if start >= last:
        raise RangeError("start", "Must not be after the current hour or day.")
    end = last
    if "end" in params:
        given = _moment(params["end"], "end")
        if given > last:  # before rounding up: past 9999-12-31 there is no next bucket
            raise RangeError("end", "Must not be after the current hour or day.")
        end = floor_to(given, granularity)
        if end < given:
            end += step
        if end <= start:
            raise RangeError("end", "Must be after start.")
    return _bounded(HistoryRange(granularity, start, end, key_id), "start")


def _bounded(found: HistoryRange, parameter: str) -> HistoryRange:
    if len(found) > MAX_BUCKETS[found.granularity]:
        raise RangeError(
            parameter,
            f"At most {MAX_BUCKETS[found.granularity]} {found.granularity}s in one answer.",
        )
    return found


def _key_id(value: str | None) -> int | None:
    if value is None:
        return None
    # str.isdigit() also holds for "²", "①" and "١٢", which int() refuses or reads as
    # a number nobody typed (issue 36.3): ASCII digits only.
    if not (value.isascii() and value.isdigit()) or len(value) > 18:
        raise RangeError("key", "A key id (a positive whole number).")
    return int(value)


def _moment(value: str, parameter: str) -> datetime:
    text = value.strip()
    if len(text) > 40:
        raise RangeError(parameter, "An ISO 8601 date or date-time.")
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        if len(text) == 10:
            moment = datetime.combine(date.fromisoformat(text), time(), tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(text)
    except ValueError:
        raise RangeError(parameter, "An ISO 8601 date or date-time.") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:  # 9999-12-31T23:59-23:59 is past the last moment a datetime holds in UTC
        moment = moment.astimezone(UTC)
    except OverflowError:
        raise RangeError(parameter, "Outside the dates this service answers for.") from None
    if moment.year < 2000:
        raise RangeError(parameter, "Must be in the year 2000 or later.")
    return moment
