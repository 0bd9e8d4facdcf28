"""The reference lists in the OpenAPI schema (issue 42.5): ``GET /v1/nutrients``
(``NutrientList``) and ``GET /v1/categories`` (``CategoryList``), paged like
``GET /v1/foods``, each item the record by id (catalogue.reference_lists)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catalogue.schema.components import CATEGORY, NUTRIENT
from catalogue.schema.foods_parameters import page_parameters
from catalogue.schema.reads import read
from catalogue.schema.shapes import NULLABLE_STRING, PAGE_LINKS, market_parameter
from core import problems
from core.openapi import closed_object, component, view_schema

_PAGING_META = {
    "offset": {"type": "integer", "minimum": 0},
    "page_size": {"type": "integer", "minimum": 1},
    "count": {"type": "integer", "minimum": 0, "description": "Items on this page."},
    "total": {"type": "integer", "minimum": 0, "description": "Items in the list (exact)."},
}
NUTRIENT_LIST = component(
    "NutrientList",
    closed_object(
        {
            "data": {"type": "array", "items": NUTRIENT},
            "links": PAGE_LINKS,
            "meta": closed_object(_PAGING_META),
        },
        "A page of nutrients in USDA's display order (rank, then id).",
    ),
)
CATEGORY_LIST = component(
    "CategoryList",
    closed_object(
        {
            "data": {"type": "array", "items": CATEGORY},
            "links": PAGE_LINKS,
            "meta": closed_object(
                {
                    "market": NULLABLE_STRING
                    | {"description": "The market listed; null: every market (paid tiers)."}
                }
                | _PAGING_META
            ),
        },
        "A page of categories by id.",
    ),
)
_MARKET = market_parameter(
    "Paid tiers: only the categories holding foods of this market (`US` or `IN`). Taster: "
    "its own market only (another is a 400)."
)


def _list(
    operation_id: str, items: str, description: str, body: dict, *, market: bool
) -> Callable[[], Any]:
    """The operation listing ``items`` (``Nutrients``), for ``view_schema``; ``market``:
    it takes ``market`` and is scoped like a foods read."""

    def build() -> Any:
        return read(
            operation_id=operation_id,
            tag="records",
            summary=f"List the {items.lower()}",
            description=description,
            body=body,
            kinds=(problems.InvalidParameter,) + ((problems.MarketNotSelected,) if market else ()),
            parameters=[*([_MARKET] if market else []), *page_parameters(items)],
        )

    return build


NutrientListSchema = view_schema(
    "catalogue.api.NutrientListView",
    get=_list(
        "nutrients_list",
        "Nutrients",
        "Every nutrient the catalogue's foods may report (USDA's, and IFCT's own from id "
        "10001), in USDA's display order: the order of a food record's `nutrients`. Each "
        "item is the nutrient's record (`GET /v1/nutrients/{id}`). Paged like "
        "`GET /v1/foods`: follow `links.next`. Any tier, no market: one list for both "
        "markets; no search needed on Taster.",
        NUTRIENT_LIST,
        market=False,
    ),
)
CategoryListSchema = view_schema(
    "catalogue.api.CategoryListView",
    get=_list(
        "categories_list",
        "Categories",
        "The food categories, by id, for building a `category=` filter: on the Taster "
        "tier those holding foods of the account's market (chosen first, as for every "
        "foods read), on paid tiers every category, or with `market=` those holding "
        "foods of that market. Each item is the category's record "
        "(`GET /v1/categories/{id}`). Paged like `GET /v1/foods`: follow `links.next`. "
        "No search needed on Taster.",
        CATEGORY_LIST,
        market=True,
    ),
)
