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
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from foodservice.dashboard.charts import BarChart, stacked_bar_chart
from foodservice.dashboard.views.accounts import account_of, own_key
from keys.models import ApiKey
from keys.selectors import key_list
from metering import selectors
from metering.history import OUTCOME_NAMES
from metering.history_range import HistoryRange, RangeError, parse_range, period_range
from metering.outcomes import OutcomeRow, recent_requests, request_outcomes
from metering.selectors import UsagePoint

CSV_GRANULARITIES = ("day", "hour")
# The outcome series of the charts, bottom of the stack first: (CSS key, legend name).
OUTCOME_SERIES = (
    ("admitted", "Admitted"),
    ("quota", "Quota 429"),
    ("burst", "Burst 429"),
    ("failed", "Failed (5xx)"),
)


def _outcomes(point: UsagePoint) -> tuple[int, int, int, int]:
    """``point``'s counts in ``OUTCOME_SERIES`` order."""
    return (point.count, point.quota_refused, point.burst_refused, point.failed)


# --- Series and charts ----------------------------------------------------------------------


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
    """One bar a day stacked by outcome; about 5 axis labels whatever the period's
    length (they must fit a phone's width, issue 29), today's included."""
    step = max(1, -(-len(points) // 5))
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


RANGES = {
    "24h": "Last 24 hours, by hour",
    "7d": "Last 7 days, by day",
    "30d": "Last 30 days, by day",
}


def history_range(
    request: HttpRequest, *, now: datetime, key_id: int | None = None
) -> HistoryRange:
    """The range the usage pages' switch chose (``?range=24h|7d|30d``, 24h by default):
    by hour over a day, else by UTC day. Raises ``RangeError`` for anything else."""
    name = request.GET.get("range", "24h")
    if name not in RANGES:
        raise RangeError("range", "range must be 24h, 7d or 30d.")
    return period_range(
        name, granularity="hour" if name == "24h" else "day", now=now, key_id=key_id
    )


def range_chart(points: list[UsagePoint], history: HistoryRange) -> BarChart:
    """Hourly or daily bars of ``points``, as the range's granularity says."""
    if history.granularity == "hour":
        return hourly_chart(points)
    return daily_chart([replace(p, start=p.start.date()) for p in points])  # type: ignore[union-attr]


def _range_context(
    request: HttpRequest, history: HistoryRange, points: list[UsagePoint]
) -> dict[str, object]:
    name = request.GET.get("range", "24h")
    chart = range_chart(points, history)
    return {
        "chart": chart,
        "chart_id": "chart-hourly" if history.granularity == "hour" else "chart-daily",
        "range": name,
        "range_title": RANGES[name],
        "ranges": [(key, key.replace("h", " h").replace("d", " d")) for key in RANGES],
        "csv_query": f"by={history.granularity}&period={name}",
        "unused": chart.total == 0,
        "unit_name": history.granularity,
        "chart_title": f"Requests per {history.granularity} by outcome, "
        + RANGES[name].split(",")[0].lower(),
        "chart_unit": "Hour (UTC)" if history.granularity == "hour" else "Day (UTC)",
    }


# --- Requests by endpoint and answer (issue 40.3) ------------------------------------------

# The answer columns, in the order of ``metering.outcomes.OUTCOME_CLASSES``.
OUTCOME_COLUMNS = (
    ("2xx", "Success"),
    ("304", "Not modified"),
    ("4xx", "Client error"),
    ("401", "Refused (401)"),
    ("429-quota", "Quota 429"),
    ("429-burst", "Burst 429"),
    ("5xx", "Failed (5xx)"),
)


def outcome_table(rows: Sequence[OutcomeRow]) -> dict[str, object]:
    """The requests of ``rows`` as one table row per endpoint (most requests first)
    with a count per answer column, each endpoint's client errors by status and kind
    (``404 not-found: 3``), and the totals."""
    columns = [name for name, _ in OUTCOME_COLUMNS]
    endpoints: dict[str, dict[str, object]] = {}
    totals = dict.fromkeys(columns, 0)
    for row in rows:
        entry = endpoints.setdefault(
            row.endpoint,
            {"endpoint": row.endpoint, "counts": dict.fromkeys(columns, 0), "kinds": []},
        )
        name = row.outcome if row.outcome in totals else "4xx"
        entry["counts"][name] += row.requests  # type: ignore[index]
        totals[name] += row.requests
        if name in ("4xx", "5xx", "401"):
            entry["kinds"].append(f"{row.status} {row.kind or 'error'}: {row.requests:,}")  # type: ignore[union-attr]
    ordered = sorted(endpoints.values(), key=lambda e: -sum(e["counts"].values()))  # type: ignore[union-attr]
    return {
        "columns": OUTCOME_COLUMNS,
        "endpoints": [
            {**e, "cells": [(label, e["counts"][name]) for name, label in OUTCOME_COLUMNS]}  # type: ignore[index]
            for e in ordered
        ],
        "totals": [(label, totals[name]) for name, label in OUTCOME_COLUMNS],
        "total": sum(totals.values()),
    }


# --- Pages ------------------------------------------------------------------------------------


@login_required
@require_GET
def usage(request: HttpRequest) -> HttpResponse:
    """The account's usage: the window's headline, one chart of the chosen range (24
    hours by hour, 7 or 30 days by day; ``usage_history``, as GET /v1/usage/history and
    the CSV read it), every key's outcomes in the window."""
    account = account_of(request)
    now = timezone.now()
    try:
        history = history_range(request, now=now)
    except RangeError as error:
        return HttpResponseBadRequest(error.detail, content_type="text/plain")
    keys = list(key_list(account=account))
    points = selectors.usage_history(account_id=account.pk, history=history)
    outcomes = selectors.key_outcomes_in_window(account=account, now=now)
    answers = request_outcomes(account_id=account.pk, start=history.start, end=history.end)
    context = {
        "answers": outcome_table(answers),
        "account": account,
        "limits": account.limits,
        "usage": selectors.usage_summary(account=account, now=now),
        "has_keys": bool(keys),
        "rows": [
            {
                "key": k,
                "state": k.state_at(now),
                "requests": outcomes.get(k.pk, (0, 0, 0, 0))[0],
                "outcomes": outcomes.get(k.pk, (0, 0, 0, 0)),
            }
            for k in keys
        ],
        **_range_context(request, history, points),
    }
    return render(request, "usage/usage.html", context)


@login_required
@require_GET
def key_usage(request: HttpRequest, key_id: int) -> HttpResponse:
    """One key's history (kept across rotations), in the range the switch chose."""
    account = account_of(request)
    key = own_key(request, key_id)
    now = timezone.now()
    try:
        history = history_range(request, now=now, key_id=key.pk)
    except RangeError as error:
        return HttpResponseBadRequest(error.detail, content_type="text/plain")
    points = selectors.usage_history(account_id=account.pk, history=history)
    answers = request_outcomes(
        account_id=account.pk, start=history.start, end=history.end, key_id=key.pk
    )
    context = {
        "answers": outcome_table(answers),
        "recent": recent_requests(account_id=account.pk, key_id=key.pk, now=now),
        "account": account,
        "limits": account.limits,
        "key": key,
        "state": key.state_at(now),
        "requests": selectors.key_usage_in_window(account=account, now=now).get(key.pk, 0),
        **_range_context(request, history, points),
    }
    return render(request, "usage/key.html", context)


# --- CSV ---------------------------------------------------------------------------------------


def _cell(text: str) -> str:
    """A label made safe for spreadsheets: no cell starts a formula."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _csv_response(
    *, filename: str, history: HistoryRange, keys: Sequence[ApiKey], account_id: int
) -> HttpResponse:
    """One row per key and bucket of ``history`` from the bucket the key was created in
    (no rows from before it existed), then, for more than one key, one ``all`` row per
    bucket: every key added up. Read by ``usage_history_by_key``, as GET
    /v1/usage/history reads it."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    by = history.granularity
    writer.writerow(
        ["hour_utc" if by == "hour" else "date_utc", "key_id", "key_label", *OUTCOME_NAMES]
    )
    series = selectors.usage_history_by_key(account_id=account_id, history=history)

    def stamp(start: datetime) -> str:
        return start.strftime("%Y-%m-%dT%H:00:00Z") if by == "hour" else start.date().isoformat()

    for key in keys:
        for point in series.get(key.pk, []):
            if point.start + history.step > key.created_at:  # type: ignore[operator]
                writer.writerow([stamp(point.start), key.pk, _cell(key.label), *_outcomes(point)])  # type: ignore[arg-type]
    if len(keys) > 1:
        for point in selectors.usage_totals(series, history):
            writer.writerow([stamp(point.start), "all", "All keys", *_outcomes(point)])  # type: ignore[arg-type]
    return response


def _csv_range(request: HttpRequest, key_id: int | None = None) -> HistoryRange | str:
    """The CSV's range: ``by`` (``day``, the default, or ``hour``) and optionally
    ``period`` (``24h``, ``7d``, ``30d``: 30 days by day, 24 hours by hour by default)
    or ``start``/``end`` (parsed as GET /v1/usage/history parses them); else the
    message of the 400."""
    by = request.GET.get("by", "day")
    if by not in CSV_GRANULARITIES:
        return "by must be day or hour."
    params = {k: v for k, v in request.GET.items() if k in ("period", "start", "end")}
    params["granularity"] = by
    if key_id is not None:
        params["key"] = str(key_id)
    try:
        return parse_range(params, now=timezone.now())
    except RangeError as error:
        return f"{error.parameter}: {error.detail}"


@login_required
@require_GET
def usage_csv(request: HttpRequest) -> HttpResponse:
    """Every key's requests per day of the last 30 days (``?by=day``, the default) or
    per hour of the last 24 hours (``?by=hour``), then every key added up."""
    history = _csv_range(request)
    if isinstance(history, str):
        return HttpResponseBadRequest(history, content_type="text/plain")
    account = account_of(request)
    name = f"foodservice-usage-{history.granularity}-{timezone.now():%Y%m%d}.csv"
    keys = list(key_list(account=account))
    return _csv_response(filename=name, history=history, keys=keys, account_id=account.pk)


@login_required
@require_GET
def key_usage_csv(request: HttpRequest, key_id: int) -> HttpResponse:
    """One key's history as CSV, same columns and parameters as ``usage_csv``."""
    key = own_key(request, key_id)
    history = _csv_range(request, key_id=key.pk)
    if isinstance(history, str):
        return HttpResponseBadRequest(history, content_type="text/plain")
    name = f"foodservice-key-{key.pk}-{history.granularity}-{timezone.now():%Y%m%d}.csv"
    return _csv_response(filename=name, history=history, keys=[key], account_id=key.account_id)
