"""The reads of one record by id in the OpenAPI schema (``GET /v1/foods/{id}``,
``/v1/nutrients/{id}``, ``/v1/categories/{id}``), and of the loaded sources
(``GET /v1/sources``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter

from catalogue.delivery.projection import RECORD_FIELDS
from catalogue.schema.batches import PARTIAL_FOOD, projection_parameters
from catalogue.schema.components import CATEGORY, FOOD_DETAIL, NUTRIENT, SOURCE_LIST
from catalogue.schema.reads import read
from catalogue.schema.shapes import data
from core import problems
from core.openapi import view_schema


def _record_read(
    operation_id: str,
    tag: str,
    name: str,
    path: tuple[str, str, str],
    body: dict,
    *kinds: Any,
    extra: Callable[[], list[OpenApiParameter]] = list,
) -> Callable[[], Any]:
    """The operation of a record read, for ``view_schema``: ``path`` is (URL parameter
    name, its help, an example id); ``kinds`` the problems it adds to the 404."""
    parameter = OpenApiParameter(
        path[0],
        str,
        OpenApiParameter.PATH,
        description=path[1],
        examples=[OpenApiExample(path[2], value=path[2])],
    )

    def build() -> Any:
        return read(
            operation_id=operation_id,
            tag=tag,
            summary=f"Read a {name}",
            description=f"One {name} by id: {path[1]}",
            body=data(body),
            kinds=(problems.NotFound, *kinds),
            parameters=[parameter, *extra()],
        )

    return build


FoodDetailSchema = view_schema(
    "catalogue.api.FoodDetailView",
    get=_record_read(
        "foods_read",
        "foods",
        "food",
        (
            "public_id",
            "`sr28-<NDB number>` or `fdc-<16 hex digits>`, as in `links.self` of a list. On "
            "the Taster tier only foods of the account's market are found.",
            "sr28-01001",
        ),
        {"anyOf": [FOOD_DETAIL, PARTIAL_FOOD]},
        problems.MarketNotSelected,
        problems.InvalidParameter,
        extra=lambda: projection_parameters(shape=RECORD_FIELDS),
    ),
)
BarcodeSchema = view_schema(
    "catalogue.api.BarcodeView",
    get=lambda: read(
        operation_id="barcodes_read",
        tag="foods",
        summary="Read a food by its barcode",
        description="The record of the food a barcode is printed on, exactly as `GET "
        "/v1/foods/{id}` answers it (same body, ETag, market rules and cost: one record "
        "read). `code` is a GTIN-8, GTIN-12 (UPC-A), GTIN-13 (EAN-13) or GTIN-14, digits "
        "only: normalised as GS1 does (left-padded with zeros to 14 digits, so a UPC-A and "
        "its EAN-13 with a leading 0 find the same food), its check digit verified. "
        "Barcodes are those of US branded foods in USDA's FoodData Central release; "
        "several foods with one barcode: the newest publication's. 404 when no food has "
        "it (its `detail` says so when the catalogue holds no barcodes at all).",
        body=data(FOOD_DETAIL),
        kinds=(problems.InvalidParameter, problems.NotFound, problems.MarketNotSelected),
        parameters=[
            OpenApiParameter(
                "code",
                str,
                OpenApiParameter.PATH,
                description="8, 12, 13 or 14 digits, the last its GS1 check digit.",
                examples=[
                    OpenApiExample("UPC-A", value="009800895007"),
                    OpenApiExample("EAN-13", value="0009800895007"),
                ],
            )
        ],
    ),
)
NutrientDetailSchema = view_schema(
    "catalogue.api.NutrientDetailView",
    get=_record_read(
        "nutrients_read",
        "records",
        "nutrient",
        (
            "nutrient_id",
            "the USDA nutrient number (`203` = Protein, `208` = Energy in kcal).",
            "203",
        ),
        NUTRIENT,
    ),
)
CategoryDetailSchema = view_schema(
    "catalogue.api.CategoryDetailView",
    get=_record_read(
        "categories_read",
        "records",
        "category",
        ("slug", "its slug (`dairy-and-egg-products`).", "dairy-and-egg-products"),
        CATEGORY,
    ),
)


def _sources_list() -> Any:
    return read(
        operation_id="sources_list",
        tag="records",
        summary="List the loaded sources",
        description="The datasets the catalogue was loaded from (title, publisher, "
        "release, licence, link), each with its foods per market and when it was "
        "last loaded.",
        body=SOURCE_LIST,
        kinds=(),
    )


SourceListSchema = view_schema("catalogue.api.SourceListView", get=_sources_list)
