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
