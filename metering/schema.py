"""``GET /v1/usage`` in the OpenAPI schema (spec 2.4, 4). Loaded by
``MeteringConfig.ready()``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter

from accounts.tiers import Tier
from core import problems
from core.openapi import closed_object, component, operation, view_schema

USAGE = component(
    "Usage",
    closed_object(
        {
            "data": {
                "type": "object",
                "description": "The account's standing in its quota window (spec 2.4).",
                "required": [
                    "tier",
                    "quota_window",
                    "request_quota",
                    "request_count",
                    "remaining",
                    "period_end",
                ],
                "additionalProperties": False,
                "properties": {
                    "tier": {"type": "string", "enum": Tier.values},
                    "quota_window": {
                        "type": "string",
                        "enum": ["daily", "monthly"],
                        "description": "`daily`: rolling 24 hours in hourly steps; "
                        "`monthly`: the billing period.",
                    },
                    "request_quota": {"type": "integer", "minimum": 0},
                    "request_count": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "Requests used in the window, across every key.",
                    },
                    "remaining": {"type": "integer", "minimum": 0},
                    "period_end": {
                        "type": "string",
                        "format": "date-time",
                        "description": "When allowance next frees up (UTC): the moment of "
                        "X-RateLimit-Reset.",
                    },
                },
            }
        }
    ),
)


def _usage_read() -> Any:
    return operation(
        operation_id="usage_read",
        tag="usage",
        summary="Read the account's usage",
        description="Quota, requests used and left, and when allowance next frees "
        "up. Not metered: never counts, carries no RateLimit headers, and answers "
        "when the account is over quota.",
        body=USAGE,
        kinds=(problems.Unauthorized, problems.InternalError, problems.ServiceUnavailable),
    )


UsageSchema = view_schema("metering.api.UsageView", get=_usage_read)


_COUNT = {"type": "integer", "minimum": 0}
_STAMP = {"type": "string", "format": "date-time"}
_OUTCOMES = {
    "requests": _COUNT
    | {"description": "Admitted and counted against the quota (the only ones that count)."},
    "quota_429": _COUNT | {"description": "Refused with the quota 429 (never counted)."},
    "burst_429": _COUNT | {"description": "Refused with the burst 429 (never counted)."},
    "failed_5xx": _COUNT | {"description": "Admitted, answered 5xx and given back."},
}

USAGE_HISTORY = component(
    "UsageHistory",
    closed_object(
        {
            "data": {
                "type": "array",
                "description": "One bucket per hour or UTC day, oldest first, zero-filled.",
                "items": closed_object(
                    {
                        "start": _STAMP | {"description": "The bucket's first moment (UTC)."},
                        "end": _STAMP | {"description": "The next bucket's start (UTC)."},
                        **_OUTCOMES,
                    }
                ),
            },
            "meta": closed_object(
                {
                    "granularity": {"type": "string", "enum": ["hour", "day"]},
                    "start": _STAMP,
                    "end": _STAMP | {"description": "Excluded."},
                    "key": {
                        "type": "integer",
                        "nullable": True,
                        "description": "The key asked for; null: every key of the account.",
                    },
                    "totals": closed_object(_OUTCOMES),
                }
            ),
        }
    ),
)


def _query(name: str, description: str, **extra: Any) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        type=str,
        location=OpenApiParameter.QUERY,
        required=False,
        description=description,
        **extra,
    )


def _usage_history() -> Any:
    return operation(
        operation_id="usage_history",
        tag="usage",
        summary="Read the account's usage over time",
        description="Requests per hour or UTC day by outcome, for every key of the "
        "account or one (`key`), over the last 24 hours, 7 days or 30 days "
        "(`period`) or a range (`start`, `end`). Not metered, like `/v1/usage`. "
        "Read from the usage history, which trails the live count of `/v1/usage` "
        "by a few seconds (`METER_FLUSH_SECONDS`); once it has caught up, the "
        "`requests` of a window equal `/v1/usage`'s `request_count`. The "
        "dashboard's charts and CSV read the same numbers. A key id of another "
        "account is a 404, like an unknown one.",
        body=USAGE_HISTORY,
        parameters=[
            _query("granularity", "`hour` (default) or `day`.", enum=["hour", "day"]),
            _query(
                "period",
                "`24h`, `7d` or `30d`, ending with the current hour or day. "
                "Default: `24h` by hour, `30d` by day. Not with `start`/`end`.",
                enum=["24h", "7d", "30d"],
            ),
            _query(
                "start",
                "ISO 8601 date or date-time (UTC unless an offset is given), moved "
                "back to the start of its hour or day; in the year 2000 (UTC) or "
                "later, not after the current hour or day.",
            ),
            _query(
                "end",
                "ISO 8601 date or date-time, moved forward to the end of its hour "
                "or day; default now, and not after the current hour or day. At "
                "most 744 hours or 366 days after `start`.",
            ),
            _query("key", "A key id of the account; default every key.", pattern="^[0-9]+$"),
        ],
        kinds=(
            problems.Unauthorized,
            problems.InvalidParameter,
            problems.NotFound,
            problems.InternalError,
            problems.ServiceUnavailable,
        ),
    )


UsageHistorySchema = view_schema("metering.api.UsageHistoryView", get=_usage_history)


_CLASSES = ["2xx", "304", "4xx", "401", "429-quota", "429-burst", "5xx"]
_KIND = {
    "type": "string",
    "nullable": True,
    "description": "The problem's kind (`not-found`, `quota-exceeded`, ...); null for a "
    "success or a 304.",
}
_ENDPOINT = {
    "type": "string",
    "description": "The method and the route, as `GET /v1/foods/{public_id}` (`GET other` "
    "for a path no route answers).",
}

USAGE_OUTCOMES = component(
    "UsageOutcomes",
    closed_object(
        {
            "data": {
                "type": "array",
                "description": "One row per endpoint, status and kind, most requests first.",
                "items": closed_object(
                    {
                        "endpoint": _ENDPOINT,
                        "status": {"type": "integer", "description": "The HTTP status answered."},
                        "kind": _KIND,
                        "outcome": {
                            "type": "string",
                            "enum": [*_CLASSES, "1xx", "3xx"],
                            "description": "`401`: refused before the meter (a disallowed "
                            "address, a revoked or expired key); `4xx`: other client "
                            "errors; `5xx`: failed and given back.",
                        },
                        "counted": {
                            "type": "boolean",
                            "description": "Whether these requests counted against the quota.",
                        },
                        "requests": _COUNT,
                    }
                ),
            },
            "meta": closed_object(
                {
                    "start": _STAMP,
                    "end": _STAMP | {"description": "Excluded."},
                    "key": {
                        "type": "integer",
                        "nullable": True,
                        "description": "The key asked for; null: every key of the account.",
                    },
                    "totals": closed_object(
                        {name: _COUNT for name in _CLASSES}
                        | {
                            "counted": _COUNT
                            | {"description": "Equals `/v1/usage/history`'s `requests`."}
                        }
                    ),
                }
            ),
        }
    ),
)

USAGE_REQUESTS = component(
    "UsageRequests",
    closed_object(
        {
            "data": {
                "type": "array",
                "description": "The newest requests first.",
                "items": closed_object(
                    {
                        "at": _STAMP | {"description": "When the answer was sent (UTC)."},
                        "key": {"type": "integer", "description": "The key's id."},
                        "method": {"type": "string"},
                        "path": {
                            "type": "string",
                            "description": "The path as sent, without the query string; "
                            "anything shaped like a key is `[redacted]`.",
                        },
                        "endpoint": _ENDPOINT,
                        "status": {"type": "integer"},
                        "kind": _KIND,
                        "latency_ms": {"type": "number", "minimum": 0},
                        "address": {
                            "type": "string",
                            "description": "The client's address (an IPv6 one as its /64).",
                        },
                        "request_id": {
                            "type": "string",
                            "description": "The answer's `X-Request-ID`.",
                        },
                    }
                ),
            },
            "meta": closed_object(
                {
                    "key": {"type": "integer", "nullable": True},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                }
            ),
        }
    ),
)

_UNMETERED_KINDS = (
    problems.Unauthorized,
    problems.InvalidParameter,
    problems.NotFound,
    problems.InternalError,
    problems.ServiceUnavailable,
)


def _usage_outcomes() -> Any:
    return operation(
        operation_id="usage_outcomes",
        tag="usage",
        summary="Read the account's requests by endpoint and answer",
        description="Every request made with the account's keys (or one, `key`) over a "
        "range, by endpoint, status and problem kind: successes, 304s, client errors "
        "by kind, 401s of a known key (a disallowed address, a revoked or expired key; "
        "an unknown or rotated-away secret belongs to no key), both 429s and the 5xx "
        "given back. The range parameters are `/v1/usage/history`'s. The counted rows "
        "add up to the history's `requests`. Written from each worker every few "
        "seconds (`METER_FLUSH_SECONDS`). Not metered.",
        body=USAGE_OUTCOMES,
        parameters=[
            _query("granularity", "`hour` (default) or `day`: how `start` and `end` round."),
            _query("period", "`24h`, `7d` or `30d` (default `24h`).", enum=["24h", "7d", "30d"]),
            _query("start", "As for `/v1/usage/history`."),
            _query("end", "As for `/v1/usage/history`."),
            _query("key", "A key id of the account; default every key.", pattern="^[0-9]+$"),
        ],
        kinds=_UNMETERED_KINDS,
    )


def _usage_requests() -> Any:
    return operation(
        operation_id="usage_requests",
        tag="usage",
        summary="Read the recent-requests log",
        description="The account's (or one key's) latest requests, newest first: time, "
        "method, path, status, problem kind, latency, address and request id. Kept: "
        "each key's newest 100 requests of the last 24 hours, refused 401s of a known "
        "key included. Never a query string, a header or a body. Written from each "
        "worker every few seconds (`METER_FLUSH_SECONDS`). Not metered.",
        body=USAGE_REQUESTS,
        parameters=[
            _query("key", "A key id of the account; default every key.", pattern="^[0-9]+$"),
            _query("limit", "1 to 100 (default 100)."),
        ],
        kinds=_UNMETERED_KINDS,
    )


UsageOutcomesSchema = view_schema("metering.api.UsageOutcomesView", get=_usage_outcomes)
UsageRequestsSchema = view_schema("metering.api.UsageRequestsView", get=_usage_requests)
