"""``POST /v1/analysis`` (issue 26): ingredient lines in, foods, grams and nutrients out.

A read with a body: metered once per call like any read (``metered_methods``), scoped
like the foods endpoints (a Taster needs its market and sees only its foods). The body
is checked by ``ingredients_from_body`` (pure); everything else is
``catalogue.analysis.selectors.analysis_run``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.response import Response

from catalogue import policies
from catalogue.analysis.selectors import analysis_run
from catalogue.api import CatalogueReadView
from core import problems
from core.controlchars import character_refusal

MAX_LINES = 100
MAX_LINE_LENGTH = 200


def ingredients_from_body(body: Any) -> list[str]:
    """The lines of ``{"ingredients": [...]}``, or ``InvalidIngredients`` naming every
    field at fault: the body not an object, another member, the list missing, not a
    list, empty or over ``MAX_LINES``, a line not a string, blank, over
    ``MAX_LINE_LENGTH`` characters, holding control or bidi control characters or lone
    surrogates."""
    if not isinstance(body, dict):
        raise problems.InvalidIngredients(
            {"body": 'Must be a JSON object: {"ingredients": ["2 tbsp butter", ...]}.'}
        )
    errors = {str(name)[:40]: "Unknown member." for name in body if name != "ingredients"}
    lines = body.get("ingredients")
    if "ingredients" not in body:
        errors["ingredients"] = "This member is required."
    elif not isinstance(lines, list):
        errors["ingredients"] = "Must be a list of strings."
    elif not 1 <= len(lines) <= MAX_LINES:
        errors["ingredients"] = f"Must hold 1 to {MAX_LINES} lines."
    else:
        for i, line in enumerate(lines):
            problem = _line_problem(line)
            if problem:
                errors[f"ingredients[{i}]"] = problem
    if errors:
        raise problems.InvalidIngredients(dict(list(errors.items())[:10]))
    return lines


def _line_problem(line: Any) -> str:
    if not isinstance(line, str):
        return "Must be a string."
    if len(line) > MAX_LINE_LENGTH:
        return f"Must be at most {MAX_LINE_LENGTH} characters."
    if not line.strip():
        return "Must not be blank."
    if refusal := character_refusal(line):  # C0, C1 (U+0085) and bidi controls
        return refusal
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return "Must be valid Unicode text (no lone surrogates)."
    return ""


class AnalysisView(CatalogueReadView):
    """``POST /v1/analysis``: ``{"ingredients": ["2 tbsp butter", ...]}`` -> one result
    per line, in order, and the totals (docs/catalogue.md, "Analysing a meal")."""

    metered_methods = frozenset({"POST"})
    max_body_bytes = settings.API_MAX_ANALYSIS_BODY_BYTES

    def post(self, request: Request) -> Response:
        market = policies.foods_market(principal=request.auth)
        lines = ingredients_from_body(request.data)
        analysis = analysis_run(lines=lines, market=market)
        matched = sum(1 for line in analysis.lines if line["status"] == "matched")
        return Response(
            {
                "data": {"ingredients": analysis.lines, "totals": analysis.totals},
                "meta": {
                    "market": market,
                    "lines": len(analysis.lines),
                    "matched": matched,
                    "incomplete_nutrients": analysis.incomplete,
                },
            },
            headers={"Cache-Control": "no-store"},
        )
