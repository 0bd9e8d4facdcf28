"""The usage-history ranges (issue 29.4), pure: what each parameter set means."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from metering.history_range import RangeError, parse_range, period_range

NOW = datetime(2026, 3, 10, 14, 25, tzinfo=UTC)


def test_defaults_are_the_last_24_hours_by_hour_and_30_days_by_day():
    hours = parse_range({}, now=NOW)
    assert (hours.start, hours.end, len(hours)) == (
        datetime(2026, 3, 9, 15, tzinfo=UTC),
        datetime(2026, 3, 10, 15, tzinfo=UTC),
        24,
    )
    days = parse_range({"granularity": "day"}, now=NOW)
    assert (days.start, days.end, len(days)) == (
        datetime(2026, 2, 9, tzinfo=UTC),
        datetime(2026, 3, 11, tzinfo=UTC),
        30,
    )
    assert list(days.buckets())[-1] == datetime(2026, 3, 10, tzinfo=UTC)


def test_a_range_is_widened_to_whole_buckets_and_offsets_are_honoured():
    found = parse_range(
        {"start": "2026-03-10T10:30:00+02:00", "end": "2026-03-10T12:00:01Z"}, now=NOW
    )
    assert (found.start, found.end) == (
        datetime(2026, 3, 10, 8, tzinfo=UTC),
        datetime(2026, 3, 10, 13, tzinfo=UTC),
    )
    assert parse_range({"start": "2026-03-10", "key": "7"}, now=NOW).key_id == 7


def test_a_week_by_day_ends_today():
    week = period_range("7d", granularity="day", now=NOW)
    assert len(week) == 7 and week.end == datetime(2026, 3, 11, tzinfo=UTC)


@pytest.mark.parametrize(
    ("params", "parameter"),
    [({"granularity": "minute"}, "granularity"), ({"end": "2026-03-10"}, "start"),
     ({"start": "2026-03-10", "period": "7d"}, "period"), ({"start": "2026-13-01"}, "start"),
     ({"start": "2026-03-11"}, "end"), ({"key": "1.5"}, "key"), ({"page": "2"}, "page")],
)  # fmt: skip
def test_what_is_refused_names_its_parameter(params, parameter):
    with pytest.raises(RangeError) as caught:
        parse_range(params, now=NOW)
    assert caught.value.parameter == parameter
