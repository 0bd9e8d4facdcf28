"""Bar charts as plain geometry for server-rendered SVG (issue 5: usage charts). Pure.

``bar_chart`` turns labelled counts into rectangles, axis ticks and a rounded scale;
``stacked_bar_chart`` does the same for several series per bar (each bar a stack of
segments, e.g. requests by outcome); ``templates/includes/bar_chart.html`` draws both,
with a legend and the numbers table for a stacked one. No JavaScript, no chart library, and
nothing a Content-Security-Policy would block (SVG attributes, not inline styles).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

WIDTH = 720
HEIGHT = 220
LEFT = 60  # room for the y-axis labels ("2.5k" drawn large on a phone, issue 29)
BOTTOM = 24  # room for the x-axis labels
TOP = 8
GAP_RATIO = 0.2  # share of each slot left empty between bars
MAX_BAR_WIDTH = 40  # a period of a few days still reads as bars, not a wall
# A non-zero segment of a stacked bar is at least this tall (taken from the bar's largest
# segment), so 3 quota 429s beside 250 admitted requests stay visible (issue 29).
MIN_SEGMENT = 3.0


@dataclass(frozen=True, slots=True)
class Segment:
    """One series' part of a stacked bar."""

    y: float
    height: float
    value: int
    series: str  # the series' key (a CSS class suffix)
    name: str  # the series' name, for the tooltip


@dataclass(frozen=True, slots=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    value: int  # the bar's total
    label: str  # full label, for the tooltip and the data table
    tick: str  # short axis label ("" for none)
    segments: tuple[Segment, ...] = ()  # stacked: bottom first, zero values left out
    values: tuple[int, ...] = ()  # stacked: every series' value, in series order

    @property
    def centre(self) -> float:
        """Where the bar's axis label is centred."""
        return round(self.x + self.width / 2, 2)

    @property
    def right(self) -> float:
        """The bar's right edge: the last label ends here, inside the chart."""
        return round(self.x + self.width, 2)


@dataclass(frozen=True, slots=True)
class Series:
    key: str
    name: str
    total: int


@dataclass(frozen=True, slots=True)
class Tick:
    y: float
    label: str


@dataclass(frozen=True, slots=True)
class BarChart:
    width: int
    height: int
    left: int
    baseline: float
    bars: tuple[Bar, ...]
    ticks: tuple[Tick, ...]
    total: int
    peak: int
    series: tuple[Series, ...] = ()  # stacked charts only


def nice_ceiling(value: int) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... that is >= ``value`` (at least 1)."""
    if value <= 1:
        return 1
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power  # pragma: no cover - the loop always returns


def _short(value: int) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 1_000:
        return f"{value / 1_000:g}k"
    return str(value)


def bar_chart(
    *,
    points: Sequence[tuple[str, str, int]],
    width: int = WIDTH,
    height: int = HEIGHT,
) -> BarChart:
    """A chart of ``points`` given as ``(label, tick, value)``, in order.

    Bars share the plot width equally (at most ``MAX_BAR_WIDTH`` each); the scale runs
    from 0 to ``nice_ceiling`` of the highest value, with ticks at 0, the top and, when
    a whole number, half-way. A bar with value 0 keeps a 1-pixel sliver so the hour or
    day still reads as "nothing", not "missing".
    """
    plot_w = width - LEFT
    baseline = float(height - BOTTOM)
    plot_h = baseline - TOP
    peak = max((v for _, _, v in points), default=0)
    top = nice_ceiling(peak)
    slot = plot_w / max(1, len(points))
    bar_w = min(slot * (1 - GAP_RATIO), MAX_BAR_WIDTH)
    bars = []
    for i, (label, tick, value) in enumerate(points):
        h = max(1.0, plot_h * value / top) if value else 1.0
        bars.append(
            Bar(
                x=round(LEFT + i * slot + (slot - bar_w) / 2, 2),
                y=round(baseline - h, 2),
                width=round(bar_w, 2),
                height=round(h, 2),
                value=value,
                label=label,
                tick=tick,
            )
        )
    marks = [0, top // 2, top] if top % 2 == 0 else [0, top]
    ticks = tuple(Tick(y=round(baseline - plot_h * m / top, 2), label=_short(m)) for m in marks)
    return BarChart(
        width=width,
        height=height,
        left=LEFT,
        baseline=baseline,
        bars=tuple(bars),
        ticks=ticks,
        total=sum(v for _, _, v in points),
        peak=peak,
    )


def stacked_bar_chart(
    *,
    points: Sequence[tuple[str, str, Sequence[int]]],
    series: Sequence[tuple[str, str]],
    width: int = WIDTH,
    height: int = HEIGHT,
) -> BarChart:
    """A chart of ``points`` given as ``(label, tick, values)``, one value per
    ``series`` entry ``(key, name)``: each bar is as tall as its total (scaled as in
    ``bar_chart``) and split into one segment per non-zero value, the first series at
    the bottom. ``series`` of the chart carries each series' total, for the legend."""
    base = bar_chart(
        points=[(label, tick, sum(values)) for label, tick, values in points],
        width=width,
        height=height,
    )
    bars = []
    for bar, (_, _, values) in zip(base.bars, points, strict=True):
        segments = []
        top = base.baseline
        for (key, name), value, part in zip(
            series, values, _segment_heights(bar.height, values), strict=True
        ):
            if value:
                top -= part
                segments.append(Segment(round(top, 2), round(part, 2), value, key, name))
        bars.append(replace(bar, segments=tuple(segments), values=tuple(values)))
    totals = [sum(values[i] for _, _, values in points) for i in range(len(series))]
    return replace(
        base,
        bars=tuple(bars),
        series=tuple(Series(key, name, n) for (key, name), n in zip(series, totals, strict=True)),
    )


def _segment_heights(height: float, values: Sequence[int]) -> list[float]:
    """``height`` split in proportion to ``values``, every non-zero value given at least
    ``MIN_SEGMENT`` (taken from the largest part) when the bar is tall enough for it;
    the parts still add up to ``height``."""
    total = sum(values)
    if not total:
        return [0.0] * len(values)
    parts = [height * v / total for v in values]
    small = [i for i, v in enumerate(values) if v and parts[i] < MIN_SEGMENT]
    if not small or height < MIN_SEGMENT * (len(small) + 1):
        return parts
    largest = max(range(len(values)), key=lambda i: parts[i])
    for i in small:
        if i != largest:
            parts[largest] -= MIN_SEGMENT - parts[i]
            parts[i] = MIN_SEGMENT
    return parts
