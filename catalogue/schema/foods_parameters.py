"""The query parameters of ``GET /v1/foods`` in the OpenAPI schema, built from the same
tables ``catalogue.search.params`` parses with (headline nutrients, data types, limits), so
the two cannot drift."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter

from catalogue.models import DataType
from catalogue.nutrients import HEADLINES
from catalogue.search import params

QUERY = OpenApiParameter.QUERY


def food_list_parameters() -> list[OpenApiParameter]:
    """Every query parameter ``catalogue.search.params.parse_food_query`` accepts."""
    return [_q(), *_filters(), _sort(), *_pages(), _variant_of(), *_nutrient_bounds()]


def _q() -> OpenApiParameter:
    return OpenApiParameter(
        "q",
        {"type": "string", "maxLength": params.MAX_Q_LENGTH},
        QUERY,
        description="Search text. Every word must match the name or the local names "
        "(with stemming; `doodh` finds cow milk in market IN), the last also as a prefix. "
        "Required on the Taster tier.",
        examples=[OpenApiExample("butter", value="butter")],
    )


def _list_of(name: str, description: str, **item: Any) -> OpenApiParameter:
    """A comma-separated list parameter (``data_type=a,b``)."""
    return OpenApiParameter(
        name,
        {
            "type": "array",
            "items": {"type": "string", **item},
            "maxItems": params.MAX_LIST_ITEMS,
        },
        QUERY,
        description=description,
        style="form",
        explode=False,
    )


def _filters() -> list[OpenApiParameter]:
    """Data type, category, brand and market."""
    return [
        _list_of("data_type", "Data types to keep, comma-separated.", enum=DataType.values),
        _list_of(
            "category", "Category ids to keep, comma-separated.", pattern="^[a-z0-9-]{1,120}$"
        ),
        OpenApiParameter(
            "brand",
            {"type": "string", "maxLength": params.MAX_TEXT_LENGTH, "pattern": "^[^\\x00-\\x1f]*$"},
            QUERY,
            description="Brand owner, case-insensitive prefix.",
        ),
        OpenApiParameter(
            "market",
            {"type": "string", "pattern": "^[A-Za-z]{2}$"},
            QUERY,
            description="Paid tiers: only this market (`US` or `IN`). Taster: its own market only.",
        ),
    ]


def _sort() -> OpenApiParameter:
    sorts = ["relevance", "name", "-name"]
    sorts += [f"{sign}{h.slug}" for h in HEADLINES for sign in ("", "-")]
    return OpenApiParameter(
        "sort",
        {"type": "string", "enum": sorts},
        QUERY,
        description="`relevance` (default with `q`, needs it), `name` (default without), "
        "or a headline nutrient; `-` for descending. Ties break by id.",
    )


def _pages() -> list[OpenApiParameter]:
    return page_parameters("Foods")


def page_parameters(items: str) -> list[OpenApiParameter]:
    """A page by number and size (``items`` per page), or by cursor: every list's."""
    return [
        OpenApiParameter(
            "page",
            {"type": "integer", "minimum": 1, "maximum": 999_999_999},
            QUERY,
            description=f"1-based page number; pages reach {params.MAX_PAGE_OFFSET:,} rows "
            "deep. Not with `cursor`.",
        ),
        OpenApiParameter(
            "page_size",
            {"type": "integer", "minimum": 1, "maximum": params.MAX_PAGE_SIZE},
            QUERY,
            description=f"{items} per page, default {params.DEFAULT_PAGE_SIZE}.",
        ),
        OpenApiParameter(
            "cursor",
            {"type": "string", "maxLength": params.MAX_CURSOR_LENGTH},
            QUERY,
            description="An opaque position from `links.next` or `links.prev`. It carries "
            "its search, so it may be sent alone; any other parameter sent with it must "
            "describe the same search (else 400).",
        ),
    ]


def _variant_of() -> OpenApiParameter:
    return OpenApiParameter(
        "variant_of",
        {"type": "string", "pattern": "^[a-z0-9]{2,8}-[A-Za-z0-9]{1,32}$"},
        QUERY,
        description="A food id: list that food's look-alikes (a result's `variants.list`).",
    )


def _nutrient_bounds() -> list[OpenApiParameter]:
    """``<nutrient>_min`` and ``<nutrient>_max`` for each headline nutrient."""
    return [
        OpenApiParameter(
            f"{h.slug}_{bound}",
            {"type": "number"},
            QUERY,
            description=f"Foods with {word} this much {h.slug} ({h.unit} per 100 g).",
        )
        for h in HEADLINES
        for bound, word in (("min", "at least"), ("max", "at most"))
    ]
