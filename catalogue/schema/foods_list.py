"""``GET /v1/foods`` in the OpenAPI schema: a page of foods (``FoodList``) and the
search, filters, sort and paging it takes (``catalogue.schema.foods_parameters``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from catalogue.delivery.projection import SUMMARY_FIELDS
from catalogue.schema.batches import (
    FOOD_BATCH,
    PARTIAL_FOOD,
    ids_parameter,
    projection_parameters,
)
from catalogue.schema.components import FOOD
from catalogue.schema.foods_parameters import food_list_parameters
from catalogue.schema.reads import read
from catalogue.schema.shapes import NULLABLE_STRING, PAGE_LINKS
from core import problems
from core.openapi import closed_object, component, view_schema

_META = closed_object(
    {
        "q": NULLABLE_STRING,
        "corrected_q": NULLABLE_STRING
        | {
            "description": "The query searched instead of q when q (nearly) "
            "matched nothing: 'showing results for ...'."
        },
        "relaxed": closed_object(
            {
                "dropped": {
                    "type": "array",
                    "items": {"type": "string"},
                    "example": ["sandwich"],
                    "description": "The words of q left out, in typed order.",
                },
                "searched": {
                    "type": "string",
                    "example": "peanut butter and jelly",
                    "description": "The query searched (also in corrected_q).",
                },
            }
        )
        | {
            "nullable": True,
            "description": "Set when q was searched with fewer words than typed: no "
            "food holds every word of it (the fewest words are left out, the least "
            "informative first, down to one), or a query of three to six words "
            "found only weak matches and a shorter one a reference food; null "
            "otherwise.",
        },
        "synonyms": {
            "type": "array",
            "items": closed_object(
                {
                    "typed": {"type": "string", "example": "aubergine"},
                    "searched": {"type": "string", "example": "eggplant"},
                }
            ),
            "description": "The words of q searched as the market's names for "
            "them (regional names and synonyms: aubergine is eggplant in "
            "market US); empty when none.",
        },
        "sort": {"type": "string"},
        "market": NULLABLE_STRING,
        "offset": {"type": "integer", "minimum": 0},
        "page_size": {"type": "integer", "minimum": 1},
        "count": {"type": "integer", "minimum": 0},
        "total": {
            "type": "integer",
            "minimum": 0,
            "description": "Matches, counted up to 1,000 for a search (q) and "
            "10,000 for a listing; at the cap it means 'at least this many'.",
        },
        "total_exact": {
            "type": "boolean",
            "description": "False when total stopped at its cap.",
        },
        "depth_limit": {"type": "integer", "nullable": True},
    }
)
FOOD_LIST = component(
    "FoodList",
    closed_object(
        {
            "data": {"type": "array", "items": {"anyOf": [FOOD, PARTIAL_FOOD]}},
            "links": PAGE_LINKS,
            "meta": _META,
        },
        "A page of foods: `data`, `links` to follow, and `meta` about the search.",
    ),
)


def _foods_list() -> Any:
    return read(
        operation_id="foods_list",
        tag="foods",
        summary="Search and list foods",
        description="Search with `q`, narrow with filters, sort, and page by "
        "following `links.next`. On the Taster tier a search is required, only "
        f"the first {settings.TASTER_RESULT_DEPTH:,} matches can be read and results "
        "are scoped to the account's market. With `ids`, reads up to 50 foods by id "
        "instead (a `FoodBatch`); `fields` and `nutrients` keep only what is asked for.",
        body={"anyOf": [FOOD_LIST, FOOD_BATCH]},
        kinds=(
            problems.InvalidParameter,
            problems.EnumerationForbidden,
            problems.ResultDepthExceeded,
            problems.MarketNotSelected,
        ),
        parameters=[
            *food_list_parameters(),
            ids_parameter(),
            *projection_parameters(shape=SUMMARY_FIELDS),
        ],
    )


FoodListSchema = view_schema("catalogue.api.FoodListView", get=_foods_list)
