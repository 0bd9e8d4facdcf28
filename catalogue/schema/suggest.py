"""``GET /v1/suggest`` in the OpenAPI schema: completions as you type
(``Suggestions``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter

from catalogue.schema.reads import read
from catalogue.schema.shapes import NULLABLE_STRING
from core import problems
from core.openapi import closed_object, component, view_schema

_SUGGESTION = closed_object(
    {
        "text": {"type": "string", "example": "peanut butter"},
        "links": closed_object(
            {
                "foods": {
                    "type": "string",
                    "example": "/v1/foods?q=peanut+butter",
                    "description": "The search for this text.",
                }
            }
        ),
    }
)
SUGGESTIONS = component(
    "Suggestions",
    closed_object(
        {
            "data": {"type": "array", "maxItems": 10, "items": _SUGGESTION},
            "meta": closed_object({"q": {"type": "string"}, "market": NULLABLE_STRING}),
        },
        "At most 10 completions of q, best first.",
    ),
)


def _suggest() -> Any:
    return read(
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
    )


SuggestSchema = view_schema("catalogue.api.SuggestView", get=_suggest)
