"""The pure bar-chart geometry behind the usage charts (foodservice/dashboard/charts.py)."""

from __future__ import annotations

import pytest

from foodservice.dashboard.charts import HEIGHT, LEFT, WIDTH, bar_chart, nice_ceiling


@pytest.mark.parametrize(
    ("value", "ceiling"),
    [(0, 1), (1, 1), (2, 2), (3, 5), (7, 10), (10, 10), (11, 20), (250, 500), (999, 1000)],
)
def test_scale_rounds_up_to_1_2_or_5_times_a_power_of_ten(value, ceiling):
    assert nice_ceiling(value) == ceiling


def test_bars_share_the_width_and_scale_to_the_rounded_peak():
    chart = bar_chart(points=[("a", "a", 10), ("b", "", 5), ("c", "c", 0)])
    full, half, empty = chart.bars
    assert full.height == pytest.approx(2 * half.height)
    assert full.y == pytest.approx(chart.baseline - full.height)
    assert empty.height == 1.0  # a sliver, so an empty hour still reads as a bar
    assert chart.total == 15 and chart.peak == 10
    assert [t.label for t in chart.ticks] == ["0", "5", "10"]
    assert all(b.x >= LEFT and b.x + b.width <= WIDTH for b in chart.bars)


def test_an_all_zero_series_has_a_scale_of_one():
    chart = bar_chart(points=[("h", "", 0)] * 24)
    assert len(chart.bars) == 24 and chart.peak == 0
    assert [t.label for t in chart.ticks] == ["0", "1"]
    assert all(b.y == chart.baseline - 1.0 for b in chart.bars)


def test_large_counts_get_short_axis_labels():
    chart = bar_chart(points=[("d", "", 180_000)])
    assert [t.label for t in chart.ticks] == ["0", "100k", "200k"]


def test_an_empty_series_draws_an_empty_chart():
    chart = bar_chart(points=[])
    assert chart.bars == () and chart.height == HEIGHT


def test_stacked_bars_split_each_total_into_its_series_bottom_first():
    from foodservice.dashboard.charts import stacked_bar_chart

    series = [("admitted", "Admitted"), ("quota", "Quota 429"), ("failed", "Failed")]
    chart = stacked_bar_chart(
        points=[("a", "a", (6, 2, 2)), ("b", "", (5, 0, 0)), ("c", "", (0, 0, 0))], series=series
    )
    full, only_admitted, empty = chart.bars
    assert (full.value, chart.peak, chart.total) == (10, 10, 15)
    assert [s.series for s in full.segments] == ["admitted", "quota", "failed"]
    assert sum(s.height for s in full.segments) == pytest.approx(full.height, abs=0.05)
    assert full.segments[0].y + full.segments[0].height == pytest.approx(chart.baseline)
    assert full.segments[0].height == pytest.approx(3 * full.segments[1].height, abs=0.05)
    assert [s.series for s in only_admitted.segments] == ["admitted"]  # zeros left out
    assert empty.segments == () and empty.height == 1.0
    assert full.values == (6, 2, 2)
    assert [(s.key, s.total) for s in chart.series] == [
        ("admitted", 11),
        ("quota", 2),
        ("failed", 2),
    ]


def test_daily_axis_labels_are_far_enough_apart_for_a_phone():
    """Issue 29: at most 5 labels over 30 days, today's included, none overlapping the
    last (which ends at the chart's right edge)."""
    import datetime as dt

    from foodservice.dashboard.views.usage import daily_chart
    from metering.selectors import UsagePoint

    start = dt.date(2026, 3, 1)
    chart = daily_chart([UsagePoint(start + dt.timedelta(days=i), i) for i in range(30)])
    ticked = [bar for bar in chart.bars if bar.tick]
    assert len(ticked) == 5 and ticked[-1] is chart.bars[-1]
    label_width = 6 * 13  # "20 Nov" at the phone's 24-unit text, about 13 units a glyph
    assert ticked[-1].right - label_width > ticked[-2].centre + label_width / 2


@pytest.mark.parametrize(
    ("used", "quota", "text"),
    [
        (0, 250, "0%"),
        (1, 250, "<1%"),  # 0.4 %: not nothing
        (3, 250, "1%"),  # 1.2 %
        (55, 250, "22%"),
        (249, 250, "99%"),  # 99.6 %: not spent yet
        (999_999, 1_000_000, "99%"),
        (250, 250, "100%"),
        (None, 250, "—"),
        (5, 0, "—"),
    ],
)
def test_usage_shares_read_in_one_format(used, quota, text):
    # issue 40.6: "0.0 %", "0.1 %" and "100 %" on one account's pages
    from foodservice.dashboard.templatetags.dashboard import percent

    assert percent(used, quota) == text
