"""The catalogue's operations in the OpenAPI schema (issue 6): parameters, bodies,
problems and headers of ``GET /v1/foods``, ``/v1/foods/{id}``, ``/v1/nutrients/{id}``
and ``/v1/categories/{id}``. Loaded by ``CatalogueConfig.ready()``.

The parameter list is built from the same tables ``catalogue.params`` parses with
(headline nutrients, data types, limits), so the two cannot drift; the bodies mirror
``catalogue.serializers`` and the contract tests (tests/docs) check every live response
against them.
"""

from __future__ import annotations

import copy
from typing import Any

from django.conf import settings
from drf_spectacular.extensions import OpenApiViewExtension
from drf_spectacular.utils import OpenApiExample, OpenApiParameter

from catalogue import params
from catalogue.models import DataType, Source
from catalogue.nutrients import HEADLINES
from core import problems
from core.openapi import (
    component,
    conditional_headers,
    described,
    not_modified,
    operation,
    ratelimit_headers,
    uri_too_long,
)

NULLABLE_STRING = {"type": "string", "nullable": True}
NULLABLE_NUMBER = {"type": "number", "nullable": True}


def _object(properties: dict[str, Any], description: str = "") -> dict[str, Any]:
    """A closed object: every property required, nothing else allowed."""
    schema = {
        "type": "object",
        "required": list(properties),
        "additionalProperties": False,
        "properties": properties,
    }
    return schema | ({"description": description} if description else {})


def _links(*names: str) -> dict[str, Any]:
    return _object({name: {"type": "string"} for name in names})


_SUMMARY = _object(
    {
        "id": {"type": "string", "example": "sr28-01001"},
        "name": {"type": "string", "example": "Butter, salted"},
        "data_type": {"type": "string", "enum": DataType.values},
        "category": _object({"id": {"type": "string"}, "name": {"type": "string"}})
        | {"nullable": True},
        "brand_owner": NULLABLE_STRING,
        "market": {"type": "string", "example": "US"},
        "source": _object(
            {"name": {"type": "string", "enum": Source.values}, "id": {"type": "string"}}
        ),
        "serving": _object({"description": NULLABLE_STRING, "gram_weight": NULLABLE_NUMBER})
        | {"nullable": True},
        "nutrients_per_100g": _object(
            {h.column: NULLABLE_NUMBER for h in HEADLINES},
            "The headline nutrients per 100 g; null when not measured (never 0).",
        ),
        "nutrients_per_serving": _object(
            {h.column: NULLABLE_NUMBER for h in HEADLINES},
            "The headline nutrients per serving (serving.gram_weight); null without one.",
        )
        | {"nullable": True},
        "variants": _object(
            {
                "count": {"type": "integer", "minimum": 2},
                "list": {"type": "string", "description": "A path listing every one."},
            },
            "Set when look-alikes of this food (same name, data type and nutrients) are "
            "hidden from the search; null otherwise.",
        )
        | {"nullable": True},
        "links": _links("self"),
    },
    "A food as listed.",
)
_DETAIL = copy.deepcopy(_SUMMARY)
_DETAIL["description"] = "A food with every portion and every measured nutrient."
_NUTRIENT_AMOUNT = _object(
    {
        "id": {"type": "integer"},
        "number": NULLABLE_STRING,
        "name": {"type": "string"},
        "unit": {"type": "string"},
        "amount_per_100g": {"type": "number"},
        "amount_per_serving": NULLABLE_NUMBER,
    }
)
_NUTRIENT_AMOUNT["properties"]["sd_per_100g"] = {
    "type": "number",
    "description": "Standard deviation of the amount, where the source gives one (IFCT: "
    "across the regions sampled).",
}
_DETAIL["properties"] |= {
    "local_names": {
        "type": "object",
        "description": "The food's names in other languages, by language "
        '({"Hindi": ["Gai ka doodh"]}); searchable. Empty for USDA foods.',
        "additionalProperties": {"type": "array", "items": {"type": "string"}},
    },
    "portions": {
        "type": "array",
        "items": _object({"description": {"type": "string"}, "gram_weight": NULLABLE_NUMBER}),
    },
    "nutrients": {"type": "array", "items": _NUTRIENT_AMOUNT},
}
_DATASET = {
    "title": {"type": "string", "nullable": True, "example": "USDA FoodData Central"},
    "publisher": NULLABLE_STRING,
    "release": NULLABLE_STRING,
    "licence": NULLABLE_STRING,
    "url": NULLABLE_STRING,
}
_DETAIL["properties"]["source"] = _object(
    {"name": {"type": "string", "enum": Source.values}, "id": {"type": "string"}} | _DATASET,
    "The dataset the food comes from (catalogue.sources) and the food's id in it.",
)
_DETAIL["required"] = [*_DETAIL["required"], "local_names", "portions", "nutrients"]
SOURCE_LIST = component(
    "SourceList",
    _object(
        {
            "data": {
                "type": "array",
                "items": _object(
                    {"name": {"type": "string", "enum": Source.values}}
                    | _DATASET
                    | {
                        "markets": {
                            "type": "array",
                            "items": _object(
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
                    "A loaded source: its dataset and its foods per market as its last "
                    "load left them.",
                ),
            }
        }
    ),
)

FOOD = component("Food", _SUMMARY)
FOOD_DETAIL = component("FoodDetail", _DETAIL)
NUTRIENT = component(
    "Nutrient",
    _object(
        {
            "id": {"type": "integer", "example": 203},
            "number": NULLABLE_STRING,
            "fdc_id": {"type": "integer", "nullable": True},
            "name": {"type": "string", "example": "Protein"},
            "unit": {"type": "string", "example": "g"},
            "tag": NULLABLE_STRING,
            "links": _links("self"),
        }
    ),
)
CATEGORY = component(
    "Category",
    _object(
        {
            "id": {"type": "string", "example": "dairy-and-egg-products"},
            "name": {"type": "string"},
            "usda_code": NULLABLE_STRING,
            "links": _links("self", "foods"),
        }
    ),
)
FOOD_LIST = component(
    "FoodList",
    _object(
        {
            "data": {"type": "array", "items": FOOD},
            "links": _object(
                {
                    "self": {"type": "string"},
                    "next": NULLABLE_STRING
                    | {"description": "The next page, to follow as is; null on the last."},
                    "prev": NULLABLE_STRING | {"description": "Null on the first page."},
                }
            ),
            "meta": _object(
                {
                    "q": NULLABLE_STRING,
                    "corrected_q": NULLABLE_STRING
                    | {
                        "description": "The query searched instead of q when q (nearly) "
                        "matched nothing: 'showing results for ...'."
                    },
                    "synonyms": {
                        "type": "array",
                        "items": _object(
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
            ),
        },
        "A page of foods: `data`, `links` to follow, and `meta` about the search.",
    ),
)


def _data(schema: dict[str, Any]) -> dict[str, Any]:
    return _object({"data": schema})


def _list_of(name: str, description: str, **item: Any) -> OpenApiParameter:
    """A comma-separated list parameter (``data_type=a,b``)."""
    return OpenApiParameter(
        name,
        {
            "type": "array",
            "items": {"type": "string", **item},
            "maxItems": params.MAX_LIST_ITEMS,
        },
        OpenApiParameter.QUERY,
        description=description,
        style="form",
        explode=False,
    )


def food_list_parameters() -> list[OpenApiParameter]:
    """Every query parameter ``catalogue.params.parse_food_query`` accepts."""
    query = OpenApiParameter.QUERY
    sorts = ["relevance", "name", "-name"]
    sorts += [f"{sign}{h.slug}" for h in HEADLINES for sign in ("", "-")]
    out = [
        OpenApiParameter(
            "q",
            {"type": "string", "maxLength": params.MAX_Q_LENGTH},
            query,
            description="Search text. Every word must match the name or the local names "
            "(with stemming; `doodh` finds cow milk in market IN), the last also as a prefix. "
            "Required on the Taster tier.",
            examples=[OpenApiExample("butter", value="butter")],
        ),
        _list_of("data_type", "Data types to keep, comma-separated.", enum=DataType.values),
        _list_of(
            "category", "Category ids to keep, comma-separated.", pattern="^[a-z0-9-]{1,120}$"
        ),
        OpenApiParameter(
            "brand",
            {"type": "string", "maxLength": params.MAX_TEXT_LENGTH, "pattern": "^[^\\x00-\\x1f]*$"},
            query,
            description="Brand owner, case-insensitive prefix.",
        ),
        OpenApiParameter(
            "market",
            {"type": "string", "pattern": "^[A-Za-z]{2}$"},
            query,
            description="Paid tiers: only this market (`US` or `IN`). Taster: its own market only.",
        ),
        OpenApiParameter(
            "sort",
            {"type": "string", "enum": sorts},
            query,
            description="`relevance` (default with `q`, needs it), `name` (default without), "
            "or a headline nutrient; `-` for descending. Ties break by id.",
        ),
        OpenApiParameter(
            "page",
            {"type": "integer", "minimum": 1, "maximum": 999_999_999},
            query,
            description=f"1-based page number; pages reach {params.MAX_PAGE_OFFSET:,} rows "
            "deep. Not with `cursor`.",
        ),
        OpenApiParameter(
            "page_size",
            {"type": "integer", "minimum": 1, "maximum": params.MAX_PAGE_SIZE},
            query,
            description=f"Foods per page, default {params.DEFAULT_PAGE_SIZE}.",
        ),
        OpenApiParameter(
            "cursor",
            {"type": "string", "maxLength": params.MAX_CURSOR_LENGTH},
            query,
            description="An opaque position from `links.next` or `links.prev`. It carries "
            "its search, so it may be sent alone; any other parameter sent with it must "
            "describe the same search (else 400).",
        ),
        OpenApiParameter(
            "variant_of",
            {"type": "string", "pattern": "^[a-z0-9]{2,8}-[A-Za-z0-9]{1,32}$"},
            query,
            description="A food id: list that food's look-alikes (a result's `variants.list`).",
        ),
    ]
    for h in HEADLINES:
        for bound, word in (("min", "at least"), ("max", "at most")):
            out.append(
                OpenApiParameter(
                    f"{h.slug}_{bound}",
                    {"type": "number"},
                    query,
                    description=f"Foods with {word} this much {h.slug} ({h.unit} per 100 g).",
                )
            )
    return out


_METERED = (
    problems.Unauthorized,
    problems.QuotaExceeded,
    problems.BurstLimitExceeded,
    problems.InternalError,
    problems.ServiceUnavailable,
)
METERED_NOTE = (
    " Metered: counts against the quota (also when answered 304, 400, 403 or 404) and "
    "carries the RateLimit headers."
)


def _read(*, description: str, kinds: tuple, parameters: list | None = None, **rest: Any) -> Any:
    """A metered, conditional catalogue read: ``core.openapi.operation`` plus
    ``If-None-Match``/``ETag``/304, the RateLimit headers, both 429s and the 414."""
    return operation(
        description=description + METERED_NOTE,
        kinds=(*kinds, *_METERED),
        parameters=[*(parameters or []), *conditional_headers(), *ratelimit_headers()],
        responses={**not_modified(), **uri_too_long()},
        **rest,
    )


class FoodListSchema(OpenApiViewExtension):
    target_class = "catalogue.api.FoodListView"

    def view_replacement(self) -> type:
        return described(
            self.target_class,
            get=_read(
                operation_id="foods_list",
                tag="foods",
                summary="Search and list foods",
                description="Search with `q`, narrow with filters, sort, and page by "
                "following `links.next`. On the Taster tier a search is required, only "
                f"the first {settings.TASTER_RESULT_DEPTH:,} matches can be read and results "
                "are scoped to the account's market.",
                body=FOOD_LIST,
                kinds=(
                    problems.InvalidParameter,
                    problems.EnumerationForbidden,
                    problems.ResultDepthExceeded,
                    problems.MarketNotSelected,
                ),
                parameters=food_list_parameters(),
            ),
        )


SUGGESTIONS = component(
    "Suggestions",
    _object(
        {
            "data": {
                "type": "array",
                "maxItems": 10,
                "items": _object(
                    {
                        "text": {"type": "string", "example": "peanut butter"},
                        "links": _object(
                            {
                                "foods": {
                                    "type": "string",
                                    "example": "/v1/foods?q=peanut+butter",
                                    "description": "The search for this text.",
                                }
                            }
                        ),
                    }
                ),
            },
            "meta": _object({"q": {"type": "string"}, "market": NULLABLE_STRING}),
        },
        "At most 10 completions of q, best first.",
    ),
)


class SuggestSchema(OpenApiViewExtension):
    target_class = "catalogue.api.SuggestView"

    def view_replacement(self) -> type:
        return described(
            self.target_class,
            get=_read(
                operation_id="suggest",
                tag="foods",
                summary="Suggestions as you type",
                description="Completions of what has been typed so far, best first (at most "
                "10): the last word is completed with the words the market's foods are "
                "named with, reference foods' words first (`chick` gives chicken before "
                "chickpeas), and after a whole word only with words that follow it in "
                "some food's name (`peanut b` gives peanut butter). Follow a suggestion's "
                "`links.foods` to search. Scoped to the account's market on the Taster "
                "tier. Input without a letter or digit gets no suggestions; `q` over 200 "
                "characters is a 400. **Debounce keystrokes**: send a request when the "
                "user pauses (about 150-300 ms after the last key), not on every key, "
                "and drop answers to older input: each request is metered like any read.",
                body=SUGGESTIONS,
                kinds=(problems.InvalidParameter, problems.MarketNotSelected),
                parameters=[
                    OpenApiParameter(
                        "q",
                        str,
                        OpenApiParameter.QUERY,
                        description="What has been typed so far (at most 200 characters).",
                        examples=[OpenApiExample("peanut b", value="peanut b")],
                    )
                ],
            ),
        )


def _record_view(
    target: str,
    operation_id: str,
    tag: str,
    name: str,
    path: tuple[str, str, str],
    body: dict,
    *kinds: Any,
) -> type[OpenApiViewExtension]:
    """The description of a record read: ``path`` is (URL parameter name, its help,
    an example id)."""
    parameter = OpenApiParameter(
        path[0],
        str,
        OpenApiParameter.PATH,
        description=path[1],
        examples=[OpenApiExample(path[2], value=path[2])],
    )

    def view_replacement(self: OpenApiViewExtension) -> type:
        return described(
            self.target_class,
            get=_read(
                operation_id=operation_id,
                tag=tag,
                summary=f"Read a {name}",
                description=f"One {name} by id: {path[1]}",
                body=_data(body),
                kinds=(problems.NotFound, *kinds),
                parameters=[parameter],
            ),
        )

    return type(
        f"{operation_id}_schema",
        (OpenApiViewExtension,),
        {"target_class": target, "view_replacement": view_replacement},
    )


FoodDetailSchema = _record_view(
    "catalogue.api.FoodDetailView",
    "foods_read",
    "foods",
    "food",
    (
        "public_id",
        "`sr28-<NDB number>` or `fdc-<16 hex digits>`, as in `links.self` of a list. On "
        "the Taster tier only foods of the account's market are found.",
        "sr28-01001",
    ),
    FOOD_DETAIL,
    problems.MarketNotSelected,
)
NutrientDetailSchema = _record_view(
    "catalogue.api.NutrientDetailView",
    "nutrients_read",
    "records",
    "nutrient",
    (
        "nutrient_id",
        "the USDA nutrient number (`203` = Protein, `208` = Energy in kcal).",
        "203",
    ),
    NUTRIENT,
)
CategoryDetailSchema = _record_view(
    "catalogue.api.CategoryDetailView",
    "categories_read",
    "records",
    "category",
    ("slug", "its slug (`dairy-and-egg-products`).", "dairy-and-egg-products"),
    CATEGORY,
)


class SourceListSchema(OpenApiViewExtension):
    target_class = "catalogue.api.SourceListView"

    def view_replacement(self) -> type:
        return described(
            self.target_class,
            get=_read(
                operation_id="sources_list",
                tag="records",
                summary="List the loaded sources",
                description="The datasets the catalogue was loaded from (title, publisher, "
                "release, licence, link), each with its foods per market and when it was "
                "last loaded.",
                body=SOURCE_LIST,
                kinds=(),
            ),
        )
