"""Dashboard usage pages (issue 5; spec 2.3, 8.1): the account's usage in its window,
each key's history (which survives rotation), SVG bar charts and CSV downloads. The
charts stack every outcome (issue 16.1): admitted (counted), refused with the quota 429,
refused with the burst 429, and failed (answered 5xx, given back); only the first
counts against the quota.

Read-only adapters over ``metering.selectors``: no metering logic lives here. The
account's own series are the sums of its keys' series (every request is made with
exactly one key). Per-key numbers come from the durable history, which trails the live
counts by up to ``METER_FLUSH_SECONDS``; the headline comes from the live meter.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from foodservice.dashboard.charts import BarChart, stacked_bar_chart
from foodservice.dashboard.views.accounts import account_of, own_key
from keys.models import ApiKey
from keys.selectors import keys_for_account
from metering import selectors
from metering.selectors import UsagePoint

CSV_GRANULARITIES = ("day", "hour")
# The outcome series of the charts, bottom of the stack first: (CSS key, legend name).
OUTCOME_SERIES = (
    ("admitted", "Admitted"),
    ("quota", "Quota 429"),
    ("burst", "Burst 429"),
    ("failed", "Failed (5xx)"),
)
CSV_OUTCOME_COLUMNS = ("requests", "quota_429", "burst_429", "failed_5xx")


def _outcomes(point: UsagePoint) -> tuple[int, int, int, int]:
    """``point``'s counts in ``OUTCOME_SERIES`` order."""
    return (point.count, point.quota_refused, point.burst_refused, point.failed)


# --- Series and charts ----------------------------------------------------------------------


def _sum_series(series: Sequence[list[UsagePoint]]) -> list[UsagePoint]:
    if not series:
        return []
    return [
        UsagePoint(
            points[0].start,
            sum(p.count for p in points),
            sum(p.quota_refused for p in points),
            sum(p.burst_refused for p in points),
            sum(p.failed for p in points),
        )
        for points in zip(*series, strict=True)
    ]


def _hour_label(start: datetime) -> str:
    """ "24 Nov 12:00-13:00": short enough for one line of a phone's numbers table (the
    table's heading and the page say the times are UTC)."""
    return f"{start:%d %b %H:00}-{start + timedelta(hours=1):%H:00}"


def _ticked(i: int, n: int, step: int) -> bool:
    """Whether bar ``i`` of ``n`` carries an axis label: every ``step``-th counted back
    from the last, so the current hour or today is always labelled (issue 15.5)."""
    return (n - 1 - i) % step == 0


def hourly_chart(points: Sequence[UsagePoint]) -> BarChart:
    """24 hourly bars stacked by outcome, an axis label every 3 hours, the current
    hour's included."""
    return stacked_bar_chart(
        points=[
            (
                _hour_label(p.start),
                f"{p.start:%H}h" if _ticked(i, len(points), 3) else "",  # type: ignore[str-format]
                _outcomes(p),
            )
            for i, p in enumerate(points)
        ],
        series=OUTCOME_SERIES,
    )


def daily_chart(points: Sequence[UsagePoint]) -> BarChart:
    """One bar a day stacked by outcome; about 6 axis labels whatever the period's
    length (they must fit a phone's width, issue 29), today's included."""
    step = max(1, -(-len(points) // 6))
    return stacked_bar_chart(
        points=[
            (
                f"{p.start:%a %d %b %Y}",
                f"{p.start:%d %b}" if _ticked(i, len(points), step) else "",
                _outcomes(p),
            )
            for i, p in enumerate(points)
        ],
        series=OUTCOME_SERIES,
    )


def _charts(hourly: list[UsagePoint], daily: list[UsagePoint]) -> dict[str, object]:
    return {
        "hourly": hourly_chart(hourly) if hourly else None,
        "daily": daily_chart(daily) if daily else None,
        "daily_since": daily[0].start if daily else None,
    }


# --- Pages ------------------------------------------------------------------------------------


@login_required
@require_GET
def usage(request: HttpRequest) -> HttpResponse:
    """The account's usage: the window's headline, hourly and daily charts, every key."""
    account = account_of(request)
    now = timezone.now()
    keys = list(keys_for_account(account=account))
    hourly = _sum_series([selectors.key_usage_hourly(key=k, now=now) for k in keys])
    daily = _sum_series([selectors.key_usage_daily(key=k, now=now) for k in keys])
    outcomes = selectors.key_outcomes_in_window(account=account, now=now)
    context = {
        "account": account,
        "limits": account.limits,
        "usage": selectors.usage_summary(account=account, now=now),
        "rows": [
            {
                "key": k,
                "state": k.state_at(now),
                "requests": outcomes.get(k.pk, (0, 0, 0, 0))[0],
                "outcomes": outcomes.get(k.pk, (0, 0, 0, 0)),
            }
            for k in keys
        ],
        **_charts(hourly, daily),
    }
    return render(request, "usage/usage.html", context)


@login_required
@require_GET
def key_usage(request: HttpRequest, key_id: int) -> HttpResponse:
    """One key's history (kept across rotations): hourly and daily charts."""
    account = account_of(request)
    key = own_key(request, key_id)
    now = timezone.now()
    hourly = selectors.key_usage_hourly(key=key, now=now)
    daily = selectors.key_usage_daily(key=key, now=now)
    context = {
        "account": account,
        "limits": account.limits,
        "key": key,
        "state": key.state_at(now),
        "requests": selectors.key_usage_in_window(account=account, now=now).get(key.pk, 0),
        **_charts(hourly, daily),
    }
    return render(request, "usage/key.html", context)


# --- CSV ---------------------------------------------------------------------------------------


def _cell(text: str) -> str:
    """A label made safe for spreadsheets: no cell starts a formula."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _csv_response(*, filename: str, by: str, keys: Iterable[ApiKey], now: datetime) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    writer.writerow(
        ["hour_utc" if by == "hour" else "date_utc", "key_id", "key_label", *CSV_OUTCOME_COLUMNS]
    )
    for key in keys:
        series = (
            selectors.key_usage_hourly(key=key, now=now)
            if by == "hour"
            else selectors.key_usage_daily(key=key, now=now)
        )
        for point in series:
            start = point.start
            stamp = (
                start.strftime("%Y-%m-%dT%H:00:00Z")
                if isinstance(start, datetime)
                else start.isoformat()
            )
            writer.writerow([stamp, key.pk, _cell(key.label), *_outcomes(point)])
    return response


def _granularity(request: HttpRequest) -> str | None:
    by = request.GET.get("by", "day")
    return by if by in CSV_GRANULARITIES else None


@login_required
@require_GET
def usage_csv(request: HttpRequest) -> HttpResponse:
    """Every key's requests per day of the billing period (``?by=day``, the default;
    the last 30 days on Taster) or per hour of the last 24 hours (``?by=hour``)."""
    by = _granularity(request)
    if by is None:
        return HttpResponseBadRequest("by must be day or hour.", content_type="text/plain")
    account = account_of(request)
    now = timezone.now()
    name = f"foodservice-usage-{by}-{now:%Y%m%d}.csv"
    return _csv_response(filename=name, by=by, keys=keys_for_account(account=account), now=now)


@login_required
@require_GET
def key_usage_csv(request: HttpRequest, key_id: int) -> HttpResponse:
    """One key's history as CSV, same columns and ``by`` as ``usage_csv``."""
    by = _granularity(request)
    if by is None:
        return HttpResponseBadRequest("by must be day or hour.", content_type="text/plain")
    key = own_key(request, key_id)
    now = timezone.now()
    name = f"foodservice-key-{key.pk}-{by}-{now:%Y%m%d}.csv"
    return _csv_response(filename=name, by=by, keys=[key], now=now)
