"""``POST /v1/analysis`` in the OpenAPI schema (issue 26): its body, its answer, its
problems, and the rules of reading lines as the /docs section of the operation. Loaded
by ``CatalogueConfig.ready()``. The bodies mirror catalogue/analysis/selectors.py and
api.py; tests/catalogue/analysis/test_schema.py checks live answers against them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample

from catalogue.analysis.api import MAX_LINE_LENGTH, MAX_LINES, MAX_SERVINGS
from catalogue.analysis.eaten import NUTRITION_TYPES
from catalogue.analysis.sentences import MAX_TEXT_LENGTH
from catalogue.models import DataType
from catalogue.nutrients import HEADLINES, NET_CARBS
from catalogue.schema.reads import METERED_KINDS, METERED_NOTE
from catalogue.schema.shapes import (
    LABEL,
    NULLABLE_NUMBER,
    NULLABLE_STRING,
    daily_values,
    headline_amounts,
    market_parameter,
)
from core import problems
from core.openapi import closed_object, component, operation, ratelimit_headers, view_schema

_REF = closed_object({"id": {"type": "string"}, "name": {"type": "string"}})
_LINE = {
    "type": "object",
    "required": [
        "text",
        "status",
        "quantity",
        "unit",
        "grams",
        "portion",
        "food",
        "nutrients",
        "alternatives",
    ],
    "additionalProperties": False,
    "properties": {
        "text": {
            "type": "string",
            "description": "The line as sent; with `text`, the item's words as split.",
        },
        "status": {"type": "string", "enum": ["matched", "unmatched"]},
        "reason": {
            "type": "string",
            "description": "Unmatched lines only: why (no food named, none found, no "
            "amount, an amount that could not be read, no measure of the matched food for "
            "the unit, or a weight over the 100 kg one line may weigh).",
        },
        "quantity": NULLABLE_NUMBER
        | {"description": "The amount as written, never bounded; null: no amount was written."},
        "range": closed_object({"low": {"type": "number"}, "high": {"type": "number"}})
        | {"description": "Present when the line gave a range; quantity is its mean."},
        "unit": NULLABLE_STRING
        | {
            "description": "Canonical unit: g, kg, mg, oz, lb, ml, l, cup, tbsp, tsp, "
            "fl oz, pint, quart, ... or a count word (large, slice, clove, ...)."
        },
        "grams": NULLABLE_NUMBER,
        "portion": NULLABLE_STRING
        | {
            "description": 'The food\'s household measure used ("1 tbsp = 14.2 g"); '
            "null for a mass unit, which converts exactly."
        },
        "food": closed_object(
            {
                "id": {"type": "string", "example": "sr28-01001"},
                "name": {"type": "string", "example": "Butter, salted"},
                "data_type": {"type": "string", "enum": DataType.values},
            }
        )
        | {"nullable": True},
        "nutrients": headline_amounts(
            "The record's nutrients_per_100g keys, scaled to "
            "grams; null where the food does not report one."
        )
        | {"nullable": True},
        "alternatives": {
            "type": "array",
            "maxItems": 3,
            "items": _REF,
            "description": "The next candidates, for a person to correct the choice.",
        },
    },
}
_META: dict[str, Any] = closed_object(
    {
        "market": NULLABLE_STRING,
        "lines": {"type": "integer", "minimum": 1},
        "matched": {"type": "integer", "minimum": 0},
        "servings": {
            "type": "integer",
            "minimum": 1,
            "nullable": True,
            "description": "The body's `servings`; null when it gave none.",
        },
        "nutrition_type": {
            "type": "string",
            "enum": list(NUTRITION_TYPES),
            "description": "How the lines were read: `cooking`, foods as bought (the "
            "default for `ingredients`), or `logging`, foods as eaten (the default for "
            "`text`); issue 39.4.",
        },
        "incomplete_nutrients": {
            "type": "array",
            "items": {"type": "string", "enum": [*(h.column for h in HEADLINES), NET_CARBS]},
            "description": "Nutrients some matched food does not report: "
            "their totals leave those lines out.",
        },
        "items": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_LINES,
            "description": "Present when the body gave `text`: how many items it was split "
            "into (issue 39.3).",
        },
    }
)
_META["required"] = [name for name in _META["required"] if name != "items"]
ANALYSIS = component(
    "Analysis",
    closed_object(
        {
            "data": {
                "type": "object",
                "required": ["ingredients", "totals", "daily_values", "label"],
                "additionalProperties": False,
                "properties": {
                    "ingredients": {"type": "array", "items": _LINE},
                    "totals": headline_amounts(
                        "Sums of the matched lines (net_carbs_g: of the lines' own)."
                    ),
                    "per_serving": headline_amounts(
                        "Present when the body gave `servings`: the totals divided by it "
                        "(null stays null)."
                    ),
                    "daily_values": daily_values("totals", optional=("per_serving",)),
                    "label": LABEL
                    | {
                        "description": "The label of one serving with `servings`, else of "
                        "the whole recipe, by the analysis's market's rules (issue 40.1)."
                    },
                },
            },
            "meta": _META,
        }
    ),
)
_SERVINGS = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_SERVINGS,
    "description": "How many servings the lines make: adds `data.per_serving`.",
}
_NUTRITION_TYPE = {
    "type": "string",
    "enum": list(NUTRITION_TYPES),
    "description": "`cooking`: read as a recipe, foods as bought (`1 cup brown rice` is "
    "dry rice); `logging`: read as a plate, foods as eaten (`150 g brown rice` is cooked "
    "rice) unless the line says raw, dry, uncooked or another state. Default: `cooking` "
    "for `ingredients`, `logging` for `text`.",
}
_LINES_REQUEST: dict[str, Any] = closed_object(
    {
        "ingredients": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_LINES,
            "items": {"type": "string", "minLength": 1, "maxLength": MAX_LINE_LENGTH},
        },
        "servings": _SERVINGS,
        "nutrition_type": _NUTRITION_TYPE,
    }
)
_LINES_REQUEST["required"] = ["ingredients"]
_TEXT_REQUEST: dict[str, Any] = closed_object(
    {
        "text": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_TEXT_LENGTH,
            "description": "A meal in one sentence, as typed in a food diary: "
            '"2 eggs and a slice of toast with butter" (issue 39.3).',
        },
        "servings": _SERVINGS,
        "nutrition_type": _NUTRITION_TYPE,
    }
)
_TEXT_REQUEST["required"] = ["text"]
# Exactly one of the two forms: each is closed, so a body with both matches neither.
REQUEST: dict[str, Any] = {"oneOf": [_LINES_REQUEST, _TEXT_REQUEST]}
MARKET = market_parameter(
    "Paid tiers: match foods of this market only (`US` or `IN`); without it, every market. "
    "Taster: its own market only (another is a 400)."
)
RULES = f"""
One result per line, in order. Send 1 to {MAX_LINES} lines of at most {MAX_LINE_LENGTH}
characters: `{{"ingredients": ["2 tbsp butter", "1 cup whole milk", "2 large eggs"]}}`.
Add `"servings": N` (1 to {MAX_SERVINGS}) for `data.per_serving`, the totals divided by N.
`data.daily_values` gives the totals (and the serving) as %Daily Value by the analysis's
market's rules (US: FDA 21 CFR 101.9(c), 2016 rule; IN: % of RDA by FSSAI's Labelling and
Display Regulations 2020), and `data.label` the nutrition label of one serving (or of the
whole recipe), amounts and percentages rounded as those rules require.
Foods come from the caller's market on the Taster tier; a paid tier matches foods of
every market, or of one with `?market=IN` (an unknown market, or a Taster naming another
market, is a 400 `invalid-parameter`).

**How a line is read.** An amount: `2`, `0.5`, `1,5`, `1/2`, `1 1/2`, `1-1/2`, `½ ¼ ¾ ⅓ ⅔ ⅛`,
`a`/`an`/`one`..`twelve`, `half`, `a dozen`, `one and a half`; a range (`2-3`, `2 to 3`)
counts as its mean and is echoed in `range`. Then a unit, spaced or not (`200g`): mass
(g, kg, mg, oz, lb and their spellings), volume (ml, cl, dl, l, cup, tbsp/`T`, tsp/`t`,
fl oz, pint, quart, gallon, pinch, dash) or a count word (large, medium, small, slice,
clove, can, stick, piece, pat, container, leaf, head, stalk, ...). Then the food.
Parenthesised text is left out (`1 (15 oz) can` is one can); after a comma only
preparation and state words count (`broccoli, chopped`). `milk 250 ml` and `3 garlic
cloves` (a part's count word after the food) work too.

**Which food.** The food words are searched like `GET /v1/foods?q=` (whole foods first);
among the first candidates, reference foods (USDA SR28, FNDDS, IFCT) come before
branded ones and names adding fewer words than the line asked come first (`2 eggs` are
whole eggs, not yolks; `1/2 avocado` is the average of all varieties, not Florida's; a
line that does not say baby, homemade or canned means the usual bought food); records
of single lab samples come last; when only branded foods come first, the reference
foods are searched alone. State words (cooked, raw, boiled, fried, ...) choose the food;
preparation words (chopped, sliced, diced, shredded, packed, ...) choose the measure
(`1 cup, chopped` before `1 cup`). `alternatives` lists the next three.

**Grams.** Mass units convert exactly. Volume and count units use the food's own
household measure (`portion` says which); a volume the food lacks converts through
another volume measure (1 cup = 16 tbsp = 48 tsp = 236.6 ml). No unit (`1 apple`,
`10 almonds`) uses the food's count measure: one named after it (`1 almond`, `1 pepper`
of a jalapeno), else the medium one. A reference food without household measures
(most FNDDS and Foundation foods) borrows the measure of the SR28 food of the same kind
and state, and `portion` names it: `1 tsp or 1 packet = 5 g (measure of Mustard,
prepared, yellow)`.

**Unmatched** lines (no food named, none found, no amount, an amount that could not be
read, no measure for the unit, or over 100 kg once converted to grams) carry a `reason`,
never a guess, and never fail the request. Nutrients use the keys of a record's
`nutrients_per_100g`; `meta.incomplete_nutrients` names those a matched food does not
report. A body that is not this object, or a line holding a control or bidi control
character (U+0085, U+202E, ...), is a 400 `invalid-ingredients`.

**As bought or as eaten.** `"nutrition_type": "cooking"` (the default for
`ingredients`) reads lines as a recipe does, foods as bought: `1 cup brown rice` is dry
rice. `"logging"` (the default for `text`) reads them as a food diary does, foods as
eaten: when a line states no state (raw, dry, uncooked, cooked, fried, ...), a name
stating a cooked state (cooked, boiled, baked, roasted, grilled, pan-fried, ...) or an
FNDDS record as eaten comes before the raw, dry or unprepared one (`150 g brown rice` is
"Rice, brown, long-grain, cooked"), unless the food is eaten raw (FNDDS's plainest
record of it says raw: an apple) or has no cooked form (milk, butter). Any other value
is a 400 `invalid-ingredients` naming `nutrition_type`; `meta.nutrition_type` says which.

**A meal in one sentence.** Send `{{"text": "2 eggs and a slice of toast with butter"}}`
(at most {MAX_TEXT_LENGTH} characters, new lines allowed; `servings` too) instead of
`ingredients`, never both: the text is split into items, each analysed as a line
(`text`: the item's words). Commas, semicolons, full stops, new lines, `plus`, `then`
always split; `and`, `&`, `with`, `w/` split unless the words on either side begin the
name of a reference food of the market (`mac and cheese`, `rice and beans` stay whole;
`salt and pepper` are two). Amounts in words stay with their item (`two eggs`, `half a
cup of rice`, `a glass of milk`: a glass, mug or bowl is one cup); words around the food
(`I had`, `for breakfast`) are left out. `meta.items` says how many items; a text naming
none, or more than {MAX_LINES}, is a 400 `invalid-ingredients` naming `text`, like a text
too long, blank or holding a control or bidi control character. One unit of the meter.
"""


def _analysis_create() -> Any:
    return operation(
        operation_id="analysis_create",
        tag="analysis",
        summary="Analyse a meal or recipe",
        description=RULES
        + METERED_NOTE.replace("304, ", "")
        + " One unit per call, whatever the number of lines.",
        request={"application/json": REQUEST},
        examples=[
            OpenApiExample(
                "A recipe",
                value={"ingredients": ["2 tbsp butter", "1 cup whole milk", "qwerty"]},
                request_only=True,
            ),
            OpenApiExample(
                "A meal in one sentence",
                value={"text": "2 eggs and a slice of toast with butter"},
                request_only=True,
            ),
        ],
        body=ANALYSIS,
        kinds=(
            problems.InvalidIngredients,
            problems.InvalidParameter,
            problems.MalformedRequest,
            problems.UnsupportedMediaType,
            problems.MarketNotSelected,
            *METERED_KINDS,
        ),
        parameters=[MARKET, *ratelimit_headers()],
    )


AnalysisSchema = view_schema("catalogue.analysis.api.AnalysisView", post=_analysis_create)
