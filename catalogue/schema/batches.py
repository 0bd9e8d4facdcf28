"""Batches and projections in the OpenAPI schema (issue 42, points 3 and 4): the ``ids``
parameter and ``FoodBatch`` body of ``GET /v1/foods``, and the ``fields`` and
``nutrients`` parameters (with ``PartialFood``, a record or row holding only the fields
asked for) of ``GET /v1/foods`` and ``GET /v1/foods/{id}``. Built from the tables
catalogue.batch and catalogue.delivery.projection parse with, so they cannot drift."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter

from catalogue import batch
from catalogue.delivery import projection
from catalogue.schema.components import FOOD_DETAIL
from catalogue.schema.shapes import NULLABLE_STRING
from core.openapi import closed_object, component

QUERY = OpenApiParameter.QUERY

PARTIAL_FOOD = component(
    "PartialFood",
    {
        "type": "object",
        "required": ["id"],
        "properties": {"id": {"type": "string"}},
        "additionalProperties": True,
        "description": "A food record or list row holding only the fields asked for with "
        "`fields` and the nutrients asked for with `nutrients` (and always `id`): the "
        "fields of `FoodDetail` (a record, a batch) or `Food` (a search page).",
    },
)
_BATCH_META = closed_object(
    {
        "ids": {"type": "integer", "minimum": 1, "description": "Distinct ids asked."},
        "count": {"type": "integer", "minimum": 0, "description": "Records answered."},
        "missing": {
            "type": "array",
            "items": {"type": "string"},
            "description": "The ids asked that name no food the caller can read (unknown, "
            "or on the Taster tier of another market), in the order asked; a single read "
            "of each would be a 404. Each still counts one unit.",
        },
        "market": NULLABLE_STRING,
    }
)
FOOD_BATCH = component(
    "FoodBatch",
    closed_object(
        {
            "data": {"type": "array", "items": {"anyOf": [FOOD_DETAIL, PARTIAL_FOOD]}},
            "meta": _BATCH_META,
        },
        "Records by id (`ids`), in the order asked, each as `GET /v1/foods/{id}` answers "
        "it (or only the fields asked for).",
    ),
)


def ids_parameter() -> OpenApiParameter:
    return OpenApiParameter(
        "ids",
        {
            "type": "array",
            "items": {"type": "string", "pattern": "^" + batch.PUBLIC_ID.pattern + "$"},
            "maxItems": batch.MAX_IDS,
        },
        QUERY,
        description=f"Read up to {batch.MAX_IDS} foods by id in one call (duplicates "
        "collapse), answered as a `FoodBatch`. Counts one unit of the quota a distinct id "
        "(missing ones too) and takes as many burst tokens (at most the bucket): a batch "
        "that does not fit is refused whole (429) and counts nothing. Only `fields` and "
        "`nutrients` may come with it (any other parameter is a 400); on the Taster tier "
        "no `q` is needed.",
        style="form",
        explode=False,
        examples=[OpenApiExample("two foods", value=["sr28-01001", "sr28-01002"])],
    )


def _names(name: str, description: str, **rest: Any) -> OpenApiParameter:
    """A comma list of at most ``projection.MAX_ITEMS`` names."""
    return OpenApiParameter(
        name,
        {
            "type": "array",
            "items": {"type": "string", "maxLength": 80},
            "maxItems": projection.MAX_ITEMS,
        },
        QUERY,
        description=description,
        style="form",
        explode=False,
        **rest,
    )


def projection_parameters(*, shape: dict[str, Any]) -> list[OpenApiParameter]:
    """``fields`` (the names of ``shape`` and their dotted sub-fields) and ``nutrients``."""
    names = [
        *shape,
        *(f"{n}.{s}" for n, subs in shape.items() if subs for s in sorted(subs)),
    ]
    return [
        _names(
            "fields",
            "Only these fields (and `id`), comma-separated: top-level names "
            "and one dotted level (`nutrients_per_100g.protein_g`; on a list, a key of "
            "each element: `nutrients.amount_per_100g`). Known names: "
            + ", ".join(f"`{n}`" for n in names)
            + " (`local_names`, `daily_values`, `label` and `portions` take any sub-key). "
            "An unknown name is a 400 listing the valid ones. Each projection has its own "
            "ETag.",
        ),
        _names(
            "nutrients",
            "Only these nutrients, comma-separated: USDA nutrient ids (`203`) "
            "or headline keys (`protein_g`), one nutrient either way; filters `nutrients` "
            "and the `nutrients_per_100g`/`nutrients_per_serving` objects.",
            examples=[OpenApiExample("protein and energy", value=["203", "energy_kcal"])],
        ),
    ]
