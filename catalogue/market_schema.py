"""``GET``/``PUT /v1/market`` in the OpenAPI schema (spec 3.2, 4; docs/api-guide.md "Markets").
Loaded by ``CatalogueConfig.ready()``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from accounts.tiers import Tier
from core import problems
from core.openapi import closed_object, component, operation, view_schema

_CODE = {"type": "string", "pattern": "^[A-Z]{2}$", "example": "US"}
MARKET = component(
    "Market",
    closed_object(
        {
            "data": closed_object(
                {
                    "market": _CODE
                    | {"nullable": True, "description": "The account's market; null until chosen."},
                    "markets_offered": {"type": "array", "items": _CODE},
                    "markets": {
                        "type": "array",
                        "description": "The offered markets with their names, by code.",
                        "items": closed_object(
                            {"code": _CODE, "name": {"type": "string", "example": "United States"}}
                        ),
                    },
                }
            )
        }
    ),
)
# A serializer rather than a raw schema, so the body is marked required.
MARKET_REQUEST = inline_serializer(
    "MarketRequest",
    {
        "market": serializers.RegexField(
            r"^[A-Za-z]{2}$", help_text="An offered ISO 3166-1 alpha-2 code, any case."
        )
    },
)
_UNMETERED = " Not metered: never counts against the quota, answers when over quota."
_TASTER = Tier.TASTER.label


def _market_read() -> Any:
    return operation(
        operation_id="market_read",
        tag="market",
        summary="Read the account's market",
        description="The account's market (null until chosen) and the markets "
        "offered." + _UNMETERED,
        body=MARKET,
        kinds=(problems.Unauthorized, problems.InternalError),
    )


def _market_choose() -> Any:
    return operation(
        operation_id="market_choose",
        tag="market",
        summary="Choose the account's market",
        description="Selects the account's market for every key at once. On the "
        f"{_TASTER} tier foods requests are scoped to it and need it chosen; paid "
        "tiers see every market. Answers like the read." + _UNMETERED,
        request={"application/json": MARKET_REQUEST},
        body=MARKET,
        kinds=(
            problems.MalformedRequest,
            problems.Unauthorized,
            problems.UnsupportedMediaType,
            problems.ValidationFailed,
            problems.InternalError,
        ),
    )


MarketSchema = view_schema("catalogue.market_api.MarketView", get=_market_read, put=_market_choose)
