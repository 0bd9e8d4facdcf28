"""The building blocks of the catalogue's bodies in the OpenAPI schema; no component
is registered here (``catalogue.schema.components`` does that)."""

from __future__ import annotations

from typing import Any

from catalogue.models import Source
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


def links(*names: str) -> dict[str, Any]:
    """``links``: a string per name."""
    return closed_object({name: {"type": "string"} for name in names})


def data(schema: dict[str, Any]) -> dict[str, Any]:
    """A body holding ``schema`` as its ``data``."""
    return closed_object({"data": schema})
