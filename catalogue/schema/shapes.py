"""The building blocks of the catalogue's bodies in the OpenAPI schema; no component
is registered here (``catalogue.schema.components`` does that)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter

from catalogue.models import Source
from catalogue.nutrients import HEADLINES, NET_CARBS
from core.openapi import closed_object

NULLABLE_STRING = {"type": "string", "nullable": True}
NULLABLE_NUMBER = {"type": "number", "nullable": True}
SOURCE_NAME = {"type": "string", "enum": Source.values}
# A dataset's facts (catalogue.sources), in a food's source and in the sources list.
DATASET = {
    "title": {"type": "string", "nullable": True, "example": "USDA FoodData Central"},
    "publisher": NULLABLE_STRING,
    "release": NULLABLE_STRING,
    "licence": NULLABLE_STRING,
    "url": NULLABLE_STRING,
}

NET_CARBS_DESCRIPTION = (
    "Net carbohydrate: carbohydrate by difference (carbohydrate_g) minus total dietary "
    "fibre (fiber_g), 6 significant digits; null unless both were measured (never "
    "computed from a missing amount as 0), and 0, not negative, where fibre exceeds "
    "carbohydrate. An informational figure, not a label value: FDA's 21 CFR 101.9 "
    "defines no net carbs. Not a filter or a sort."
)


def headline_amounts(description: str) -> dict[str, Any]:
    """The headline amounts object (``catalogue.nutrients.headline_amounts``): each
    headline column, then ``net_carbs_g``, each a number or null."""
    properties: dict[str, Any] = {h.column: NULLABLE_NUMBER for h in HEADLINES}
    properties[NET_CARBS] = NULLABLE_NUMBER | {"description": NET_CARBS_DESCRIPTION}
    return closed_object(properties, description)


# A list page's links (GET /v1/foods and the reference lists).
PAGE_LINKS = closed_object(
    {
        "self": {"type": "string"},
        "next": NULLABLE_STRING
        | {"description": "The next page, to follow as is; null on the last."},
        "prev": NULLABLE_STRING | {"description": "Null on the first page."},
    }
)


def market_parameter(description: str) -> OpenApiParameter:
    """The ``market`` query parameter (a two-letter code, any case) that ``description``
    explains for its operation."""
    return OpenApiParameter(
        "market",
        {"type": "string", "pattern": "^[A-Za-z]{2}$"},
        OpenApiParameter.QUERY,
        description=description,
    )


def links(*names: str) -> dict[str, Any]:
    """``links``: a string per name."""
    return closed_object({name: {"type": "string"} for name in names})


def data(schema: dict[str, Any]) -> dict[str, Any]:
    """A body holding ``schema`` as its ``data``."""
    return closed_object({"data": schema})


# %Daily Value and the nutrition label (catalogue/labels.py, issue 40.1).
_PERCENTS = {
    "type": "object",
    "additionalProperties": NULLABLE_NUMBER,
    "description": "Percent of the market's daily reference amount, by headline nutrient "
    "column (US: fat_g, saturated_fat_g, cholesterol_mg, sodium_mg, carbohydrate_g, fiber_g, "
    "protein_g, calcium_mg, iron_mg, potassium_mg; IN: energy_kcal, fat_g, saturated_fat_g, "
    "sodium_mg), to 0.1; null where the amount was not measured.",
}
RULES = {
    "market": {"type": "string", "enum": ["US", "IN"]},
    "source": {"type": "string", "description": "The labelling rules the percentages follow."},
}


def daily_values(
    *bases: str, optional: tuple[str, ...] = (), nullable: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``daily_values``: the market, the rules' source and a percent object per basis
    (``per_100g``, ``totals``, ...), those in ``optional`` not always present, those in
    ``nullable`` null at times."""
    percents = {
        basis: _PERCENTS | ({"nullable": True} if basis in nullable else {})
        for basis in (*bases, *optional)
    }
    schema = closed_object(
        RULES | percents,
        "%Daily Value (US: FDA 21 CFR 101.9(c), 2016 rule) or % of RDA (IN: FSSAI Labelling "
        "and Display Regulations 2020), by the market's rules.",
    )
    schema["required"] = [name for name in schema["required"] if name not in optional]
    return schema


_LABEL_ROW = closed_object(
    {
        "nutrient": {"type": "string", "description": "The headline column."},
        "name": {"type": "string", "example": "Total Fat"},
        "unit": {"type": "string", "example": "g"},
        "amount": {
            **NULLABLE_NUMBER,
            "description": "Rounded as the rules require; for a 'less than' text, its bound.",
        },
        "text": {**NULLABLE_STRING, "description": 'As printed: "8g", "less than 1g".'},
        "percent": {
            "type": "integer",
            "nullable": True,
            "description": "%DV (US) or %RDA (IN), rounded as the rules require; null "
            "without a reference amount or an amount.",
        },
    }
)
LABEL = closed_object(
    {
        "format": {"type": "string", "enum": ["us_fda_2016", "in_fssai_2020"]},
        "basis": {"type": "string", "example": "per serving (1 of 4)"},
        "source": {"type": "string"},
        "rows": {"type": "array", "items": _LABEL_ROW},
    },
    "The nutrition label a client can print: the market's panel, amounts and percentages "
    "rounded by its rules (US: 21 CFR 101.9(c)).",
)
