"""Metered API views and GET /v1/usage (spec 2.4, 4, 7, 8)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from django.http import HttpResponseBase
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import problems
from core.requestnotes import notes_of
from keys.selectors import key_exists
from metering.headers import ratelimit_headers
from metering.history import OUTCOME_NAMES
from metering.history_range import HistoryRange, RangeError, parse_range
from metering.outcomes import (
    KEEP_REQUESTS,
    OUTCOME_CLASSES,
    recent_requests,
    request_outcomes,
)
from metering.selectors import principal_usage, usage_history_by_key, usage_totals
from metering.services import usage_refund
from metering.throttling import METERED_METHODS, MeterThrottle, meter_decision, meter_now


class MeteredAPIView(APIView):
    """Base of every metered data read (spec 8): every /v1 view that reads data
    subclasses it and implements ``get``.

    GET and HEAD (and the methods a view names in ``metered_methods``: ``POST
    /v1/analysis``, a read with a body) are metered once per request by
    ``MeterThrottle`` (burst and quota in one atomic decision; a 429 is never
    counted). Every admitted metered response,
    whatever the view answers (2xx, 304, 403, 404, ...), carries the RateLimit headers
    (metering/headers.py); the quota 429 carries them too, the burst 429 only
    Retry-After. Subclasses must not change ``throttle_classes``. A view returning
    ``Response(status=304)`` itself keeps the headers: no middleware rebuilds it.
    An admitted request answered 5xx (a database outage, a bug) gives its unit back
    (issue 11.7): one more meter call, on that error path only; its RateLimit headers
    then describe the standing without it.

    A body the view could not read for its media type (a metered method other than GET
    and HEAD, with a body whose ``Content-Type`` no parser takes) is the 415
    ``unsupported-media-type`` before the meter decides (issue 36.6): decided from the
    headers alone, after authentication, so it is never counted and takes no burst
    token, like a 401, and carries no RateLimit headers. The body itself is read by the
    view, after the meter: a malformed one is a counted 400.
    """

    throttle_classes = [MeterThrottle]

    def meter_carry(self, request: Request) -> str | None:
        """A Redis key for the meter to read in the same round trip as its decision
        (after authentication, before the view runs; None: nothing). The view finds
        the value in ``meter_decision(request).carried`` (issue 28.5: a record shared
        by every worker, read at no extra round trip). Called only when the meter
        ``carries``; it must not raise."""
        return None

    def meter_units(self, request: Request) -> int:
        """What the request costs in the quota (issue 42.3), read from the request alone
        before the meter decides (never the database: a refused request costs nothing).
        One; a batch of foods one a food asked. It must not raise (a request it cannot
        read costs one, and its view answers the 400)."""
        return 1

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # The metering script checks the key's principal is current, so authentication
        # (run by ``super().initial``) may answer this worker's copy unchecked
        # (keys/authentication.py).
        notes_of(request).key_checked_by_meter = True
        super().initial(request, *args, **kwargs)

    def check_throttles(self, request: Request) -> None:
        _refuse_unreadable_body(request, self)
        super().check_throttles(request)

    def finalize_response(
        self, request: Request, response: HttpResponseBase, *args: Any, **kwargs: Any
    ) -> HttpResponseBase:
        response = super().finalize_response(request, response, *args, **kwargs)
        decision = meter_decision(request)
        notes = notes_of(request)
        if (
            decision is not None
            and decision.allowed
            and response.status_code >= 500
            and not notes.meter_refunded
        ):
            notes.meter_refunded = True
            if usage_refund(principal=request.auth, decision=decision):
                decision = replace(decision, used=max(0, decision.used - decision.units))
        if decision is not None and decision.allowed:
            for name, value in ratelimit_headers(decision).items():
                response[name] = value
        return response


def _refuse_unreadable_body(request: Request, view: APIView) -> None:
    """The 415 DRF would raise when the view reads ``request.data``, raised before the
    meter instead: the same test on the same headers (``Request._parse``: a body of a
    non-zero ``Content-Length`` that no parser of the view takes), for the metered
    methods whose views read a body (``metered_methods`` but GET and HEAD)."""
    method = request.method or ""
    if method in METERED_METHODS or method not in getattr(view, "metered_methods", ()):
        return
    meta = request.META
    try:
        length = int(meta.get("CONTENT_LENGTH", meta.get("HTTP_CONTENT_LENGTH", 0)))
    except (TypeError, ValueError):
        length = 0
    if length and request.negotiator.select_parser(request, request.parsers) is None:
        raise problems.UnsupportedMediaType()


class UsageView(APIView):
    """``GET /v1/usage``: ``{"data": <usage record>}`` (spec 2.4) for the key's account.

    Unmetered (spec 4): no quota, no burst token, no RateLimit headers, and it answers
    when the account is over quota. Its numbers agree with the RateLimit headers of the
    account's last metered response (both come from the live meter)."""

    throttle_classes: list = []

    def get(self, request: Request) -> Response:
        usage = principal_usage(principal=request.auth, now=meter_now())
        return Response(
            {
                "data": {
                    "tier": usage.tier,
                    "quota_window": usage.quota_window,
                    "request_quota": usage.request_quota,
                    "request_count": usage.request_count,
                    "remaining": usage.remaining,
                    "period_end": usage.period_end.strftime("%Y-%m-%dT%H:%M:%SZ"),
                }
            }
        )


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class UsageHistoryView(APIView):
    """``GET /v1/usage/history`` (issue 29.4): the account's requests by outcome per
    hour or UTC day, for every key or one (``key``), over a named period or a range
    (``metering.history_range.parse_range`` lists the parameters).

    Unmetered like ``/v1/usage``: never counted, no RateLimit headers, answers when the
    quota is spent. Read from the durable history (``usage_history_by_key``), the same
    read as the dashboard's charts and CSV; it trails the live meter by at most
    ``METER_FLUSH_SECONDS``. A key of another account is a 404, like an unknown id."""

    throttle_classes: list = []

    def get(self, request: Request) -> Response:
        history = _history_range(request)
        series = usage_history_by_key(account_id=request.auth.account_id, history=history)
        if history.key_id is not None and history.key_id not in series:  # not this account's
            raise problems.NotFound(f"No key with id {history.key_id}.")
        points = usage_totals(series, history)
        rows = [
            {
                "start": _stamp(p.start),
                "end": _stamp(p.start + history.step),
                "requests": p.count,
                "quota_429": p.quota_refused,
                "burst_429": p.burst_refused,
                "failed_5xx": p.failed,
            }
            for p in points
        ]
        return Response(
            {
                "data": rows,
                "meta": {
                    "granularity": history.granularity,
                    "start": _stamp(history.start),
                    "end": _stamp(history.end),
                    "key": history.key_id,
                    "totals": {name: sum(row[name] for row in rows) for name in OUTCOME_NAMES},
                },
            }
        )


def _single_params(request: Request) -> dict[str, str]:
    """The query's parameters; a repeated one is the invalid-parameter problem."""
    params: dict[str, str] = {}
    for name in request.query_params:
        values = request.query_params.getlist(name)
        if len(values) > 1:
            raise problems.InvalidParameter(name, "Give this parameter at most once.")
        params[name] = values[0]
    return params


def _history_range(request: Request) -> HistoryRange:
    """The range the query names (``metering.history_range.parse_range``); a bad one is
    the invalid-parameter problem naming its parameter."""
    try:
        return parse_range(_single_params(request), now=meter_now())
    except RangeError as error:
        raise problems.InvalidParameter(error.parameter, error.detail) from None


def _own_key(request: Request, key_id: int | None) -> None:
    """A key id of another account is a 404, like an unknown one."""
    if key_id is not None and not key_exists(key_id=key_id, account_id=request.auth.account_id):
        raise problems.NotFound(f"No key with id {key_id}.")


class UsageOutcomesView(APIView):
    """``GET /v1/usage/outcomes`` (issue 40.3): the account's (or one key's) requests
    over a range by endpoint, status and problem kind, with each row's class (``2xx``,
    ``304``, ``4xx``, ``401``, ``429-quota``, ``429-burst``, ``5xx``) and whether it
    counted. The range parameters are ``/v1/usage/history``'s. Unmetered."""

    throttle_classes: list = []

    def get(self, request: Request) -> Response:
        history = _history_range(request)
        _own_key(request, history.key_id)
        rows = request_outcomes(
            account_id=request.auth.account_id,
            start=history.start,
            end=history.end,
            key_id=history.key_id,
        )
        totals = dict.fromkeys(OUTCOME_CLASSES, 0) | {"counted": 0}
        for row in rows:
            totals[row.outcome] = totals.get(row.outcome, 0) + row.requests
            totals["counted"] += row.requests if row.counted else 0
        return Response(
            {
                "data": [
                    {
                        "endpoint": row.endpoint,
                        "status": row.status,
                        "kind": row.kind or None,
                        "outcome": row.outcome,
                        "counted": row.counted,
                        "requests": row.requests,
                    }
                    for row in rows
                ],
                "meta": {
                    "start": _stamp(history.start),
                    "end": _stamp(history.end),
                    "key": history.key_id,
                    "totals": totals,
                },
            }
        )


REQUESTS_PARAMETERS = ("key", "limit")


class UsageRequestsView(APIView):
    """``GET /v1/usage/requests`` (issue 40.3): the recent-requests log of the account
    or one key (``key``), newest first, at most ``limit`` (1 to 100, default 100);
    the newest 100 requests per key of the last 24 hours are kept. Unmetered."""

    throttle_classes: list = []

    def get(self, request: Request) -> Response:
        params = _single_params(request)
        unknown = sorted(set(params) - set(REQUESTS_PARAMETERS))
        if unknown:
            raise problems.InvalidParameter(unknown[0], "Unknown parameter.")
        key_id = _whole(params, "key", low=1, high=10**18 - 1, default=None)
        limit = _whole(params, "limit", low=1, high=KEEP_REQUESTS, default=KEEP_REQUESTS)
        _own_key(request, key_id)
        found = recent_requests(
            account_id=request.auth.account_id, key_id=key_id, now=meter_now(), limit=limit
        )
        return Response(
            {
                "data": [
                    {
                        "at": entry.at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                        "key": entry.key_id,
                        "method": entry.method,
                        "path": entry.path,
                        "endpoint": entry.endpoint,
                        "status": entry.status,
                        "kind": entry.kind or None,
                        "latency_ms": entry.latency_ms,
                        "address": entry.address,
                        "request_id": entry.request_id,
                    }
                    for entry in found
                ],
                "meta": {"key": key_id, "limit": limit},
            }
        )


def _whole(
    params: dict[str, str], name: str, *, low: int, high: int, default: int | None
) -> int | None:
    value = params.get(name)
    if value is None:
        return default
    if (
        not (value.isascii() and value.isdigit())
        or len(value) > 18
        or not low <= int(value) <= high
    ):
        raise problems.InvalidParameter(name, f"A whole number from {low} to {high}.")
    return int(value)
