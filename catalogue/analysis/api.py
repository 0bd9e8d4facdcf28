"""``POST /v1/analysis`` (issue 26): ingredient lines in, foods, grams and nutrients out.

A read with a body: metered once per call like any read (``metered_methods``), scoped
like the foods endpoints (a Taster needs its market and sees only its foods; a paid
tier may name one with ``?market=CC``, issue 38.5). The body is checked by
``analysis_request`` (pure); everything else is
``catalogue.analysis.selectors.analysis_run``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.response import Response

from catalogue import policies
from catalogue.analysis.selectors import analysis_run
from catalogue.api import CatalogueReadView
from catalogue.search.params import market_parameter
from core import problems
from core.controlchars import character_refusal

MAX_LINES = 100
MAX_LINE_LENGTH = 200
MAX_SERVINGS = 1000
QUERY_PARAMETERS = frozenset({"market"})


@dataclass(frozen=True, slots=True)
class AnalysisRequest:
    """A checked body: its ``lines`` and the ``servings`` they make (None: not said)."""

    lines: list[str]
    servings: int | None = None


def analysis_request(body: Any) -> AnalysisRequest:
    """``{"ingredients": [...], "servings": N}`` checked (``servings`` optional, issue
    38.6), or ``InvalidIngredients`` naming every field at fault: those of
    ``ingredients_from_body``, and ``servings`` not a whole number from 1 to
    ``MAX_SERVINGS`` (a boolean is not a number)."""
    errors = _body_errors(body)
    servings = body.get("servings") if isinstance(body, dict) else None
    said = isinstance(body, dict) and "servings" in body
    whole = isinstance(servings, int) and not isinstance(servings, bool)
    if said and not (whole and 1 <= servings <= MAX_SERVINGS):  # type: ignore[operator]
        errors["servings"] = f"Must be a whole number from 1 to {MAX_SERVINGS}."
    if errors:
        raise problems.InvalidIngredients(dict(list(errors.items())[:10]))
    return AnalysisRequest(body["ingredients"], servings)


def ingredients_from_body(body: Any) -> list[str]:
    """The lines of ``{"ingredients": [...]}``, or ``InvalidIngredients`` naming every
    field at fault: the body not an object, a member other than ``ingredients`` and
    ``servings``, the list missing, not a list, empty or over ``MAX_LINES``, a line not a
    string, blank, over ``MAX_LINE_LENGTH`` characters, holding control or bidi control
    characters or lone surrogates."""
    errors = _body_errors(body)
    if errors:
        raise problems.InvalidIngredients(dict(list(errors.items())[:10]))
    return body["ingredients"]


def _body_errors(body: Any) -> dict[str, str]:
    if not isinstance(body, dict):
        return {"body": 'Must be a JSON object: {"ingredients": ["2 tbsp butter", ...]}.'}
    errors = {
        str(name)[:40]: "Unknown member."
        for name in body
        if name not in ("ingredients", "servings")
    }
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
    return errors


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


def requested_market(params: Mapping[str, Sequence[str]]) -> str:
    """The ``market`` of the query string ("" when absent), or ``InvalidParameter``
    naming an unknown parameter, a repeated one or a malformed code (issue 38.5)."""
    for name, given in params.items():
        if name not in QUERY_PARAMETERS:
            raise problems.InvalidParameter(name[:40], "Unknown parameter.")
        if len(given) != 1:
            raise problems.InvalidParameter(name, "Give this parameter at most once.")
    return market_parameter(params["market"][0]) if "market" in params else ""


def per_serving(totals: dict[str, float | None], servings: int) -> dict[str, float | None]:
    """``totals`` divided by ``servings``, the same keys; null stays null (issue 38.6)."""
    return {k: None if v is None else round(v / servings, 2) for k, v in totals.items()}


class AnalysisView(CatalogueReadView):
    """``POST /v1/analysis[?market=CC]``: ``{"ingredients": ["2 tbsp butter", ...],
    "servings": N}`` -> one result per line, in order, the totals and, with ``servings``,
    the totals per serving (docs/catalogue.md, "Analysing a meal")."""

    metered_methods = frozenset({"POST"})
    max_body_bytes = settings.API_MAX_ANALYSIS_BODY_BYTES

    def post(self, request: Request) -> Response:
        requested = requested_market(dict(request.query_params.lists()))
        market = policies.foods_market(principal=request.auth, requested=requested)
        asked = analysis_request(request.data)
        analysis = analysis_run(lines=asked.lines, market=market)
        matched = sum(1 for line in analysis.lines if line["status"] == "matched")
        data: dict[str, Any] = {"ingredients": analysis.lines, "totals": analysis.totals}
        if asked.servings is not None:
            data["per_serving"] = per_serving(analysis.totals, asked.servings)
        return Response(
            {
                "data": data,
                "meta": {
                    "market": market,
                    "lines": len(analysis.lines),
                    "matched": matched,
                    "servings": asked.servings,
                    "incomplete_nutrients": analysis.incomplete,
                },
            },
            headers={"Cache-Control": "no-store"},
        )
