"""``GET /v1/usage`` in the OpenAPI schema (spec 2.4, 4). Loaded by
``MeteringConfig.ready()``."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiViewExtension

from accounts.tiers import Tier
from foodservice.core import problems
from foodservice.core.openapi import component, described, operation

USAGE = component(
    "Usage",
    {
        "type": "object",
        "required": ["data"],
        "additionalProperties": False,
        "properties": {
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
        },
    },
)


class UsageSchema(OpenApiViewExtension):
    target_class = "metering.api.UsageView"

    def view_replacement(self) -> type:
        return described(
            self.target_class,
            get=operation(
                operation_id="usage_read",
                tag="usage",
                summary="Read the account's usage",
                description="Quota, requests used and left, and when allowance next frees "
                "up. Not metered: never counts, carries no RateLimit headers, and answers "
                "when the account is over quota.",
                body=USAGE,
                kinds=(problems.Unauthorized, problems.InternalError, problems.ServiceUnavailable),
            ),
        )
