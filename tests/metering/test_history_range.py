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
     ({"start": "2026-03-11"}, "start"), ({"key": "1.5"}, "key"), ({"page": "2"}, "page")],
)  # fmt: skip
def test_what_is_refused_names_its_parameter(params, parameter):
    with pytest.raises(RangeError) as caught:
        parse_range(params, now=NOW)
    assert caught.value.parameter == parameter


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"key": "²"}, "key"),  # str.isdigit() holds, int() refuses
        ({"key": "①"}, "key"),
        ({"key": "\u0661\u0662"}, "key"),  # Arabic-Indic 12: int() reads 12
        ({"key": "1²"}, "key"),
        ({"start": "9999-12-31T23:30:00Z", "end": "9999-12-31T23:59:00Z"}, "start"),
        ({"start": "2026-03-10", "end": "9999-12-31T23:59:00Z"}, "end"),  # no next hour
        ({"granularity": "day", "start": "2026-03-01", "end": "9999-12-31T12:00Z"}, "end"),
        ({"start": "2026-03-01", "end": "9999-12-31T23:59:59-23:59"}, "end"),
        ({"start": "9999-12-31T23:59:59.999999-23:59:59"}, "start"),
        ({"start": "0001-01-01T00:00:00+23:59"}, "start"),
    ],
)
def test_non_ascii_ids_and_moments_past_what_datetime_holds_are_range_errors(params, parameter):
    """Issue 36.3: each of these raised ValueError or OverflowError (a 500)."""
    with pytest.raises(RangeError) as caught:
        parse_range(params, now=NOW)
    assert caught.value.parameter == parameter


def test_an_end_at_the_top_of_the_next_hour_is_still_the_current_hour():
    """The end is compared with the current bucket's end before it is rounded up: an
    end exactly there, or inside the current hour, is accepted, one microsecond after
    it is not."""
    for end in ("2026-03-10T15:00:00Z", "2026-03-10T14:59:59.999999Z"):
        found = parse_range({"start": "2026-03-10T13:00Z", "end": end}, now=NOW)
        assert (found.start.hour, found.end.hour) == (13, 15)
    with pytest.raises(RangeError):
        parse_range({"start": "2026-03-10T13:00Z", "end": "2026-03-10T15:00:00.000001Z"}, now=NOW)
    assert parse_range({"key": "0123"}, now=NOW).key_id == 123
