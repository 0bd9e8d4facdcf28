"""``POST /v1/analysis`` (issue 26): ingredient lines in, foods, grams and nutrients out;
or a meal in one sentence (``{"text": ...}``, issue 39.3), cut into its items
(catalogue.analysis.sentences) and analysed as lines.

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

from catalogue import labels, policies
from catalogue.analysis.eaten import NUTRITION_TYPES
from catalogue.analysis.selectors import analysis_run, sentence_run
from catalogue.analysis.sentences import MAX_TEXT_LENGTH, Piece, pieces
from catalogue.api import CatalogueReadView
from catalogue.search.params import market_parameter
from core import problems
from core.controlchars import character_refusal
from keys.principal import KeyPrincipal

MAX_LINES = 100
MAX_LINE_LENGTH = 200
MAX_SERVINGS = 1000
QUERY_PARAMETERS = frozenset({"market"})


@dataclass(frozen=True, slots=True)
class AnalysisRequest:
    """A checked body: its ``lines`` and the ``servings`` they make (None: not said);
    with ``{"text": ...}`` (issue 39.3), ``lines`` is empty and ``found`` holds the
    text's pieces (never empty); ``nutrition_type``: "cooking" (foods as bought, the
    default for lines) or "logging" (foods as eaten, the default for a text; issue 39.4)."""

    lines: list[str]
    servings: int | None = None
    found: list[Piece] | None = None
    nutrition_type: str = "cooking"


def analysis_request(body: Any) -> AnalysisRequest:
    """``{"ingredients": [...], "servings": N, "nutrition_type": "cooking"}`` checked
    (``nutrition_type`` optional, issue 39.4: "cooking" or "logging", the default by the
    form: "cooking" for lines, "logging" for a text; ``servings`` optional, issue
    38.6), or ``InvalidIngredients`` naming every field at fault: those of
    ``ingredients_from_body``, and ``servings`` not a whole number from 1 to
    ``MAX_SERVINGS`` (a boolean is not a number)."""
    errors = _body_errors(body)
    servings = body.get("servings") if isinstance(body, dict) else None
    said = isinstance(body, dict) and "servings" in body
    whole = isinstance(servings, int) and not isinstance(servings, bool)
    if said and not (whole and 1 <= servings <= MAX_SERVINGS):  # type: ignore[operator]
        errors["servings"] = f"Must be a whole number from 1 to {MAX_SERVINGS}."
    kind = _nutrition_type(body)
    if kind is None:
        errors["nutrition_type"] = 'Must be "cooking" or "logging".'
    found = None
    if not errors and "text" in body:
        found = pieces(body["text"])
        if not found:
            errors["text"] = "Must name at least one food."
        elif len(found) > MAX_LINES:
            errors["text"] = f"Must name at most {MAX_LINES} items."
    if errors:
        raise problems.InvalidIngredients(dict(list(errors.items())[:10]))
    if found is not None:
        return AnalysisRequest([], servings, found, kind or "logging")
    return AnalysisRequest(body["ingredients"], servings, nutrition_type=kind or "cooking")


def _nutrition_type(body: Any) -> str | None:
    """The body's ``nutrition_type``: "" when not said (the form's default), None when
    it is not one of ``NUTRITION_TYPES`` (issue 39.4)."""
    if not isinstance(body, dict) or "nutrition_type" not in body:
        return ""
    given = body["nutrition_type"]
    return given if isinstance(given, str) and given in NUTRITION_TYPES else None


def ingredients_from_body(body: Any) -> list[str]:
    """The lines of ``{"ingredients": [...]}``, or ``InvalidIngredients`` naming every
    field at fault: the body not an object, a member other than ``ingredients``,
    ``text``, ``servings`` and ``nutrition_type``, the list missing, not a list, empty
    or over ``MAX_LINES``, a line not a string, blank, over ``MAX_LINE_LENGTH``
    characters, holding control or bidi control characters or lone surrogates."""
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
        if name not in ("ingredients", "text", "servings", "nutrition_type")
    }
    lines = body.get("ingredients")
    if "text" in body and "ingredients" in body:
        errors["text"] = errors["ingredients"] = "Send either ingredients or text, not both."
        return errors
    if "text" in body:
        if problem := _text_problem(body["text"]):
            errors["text"] = problem
        return errors
    if "ingredients" not in body:
        errors["ingredients"] = "This member is required (or text)."
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


def _text_problem(sentence: Any) -> str:
    """What is wrong with a body's ``text`` (issue 39.3): the checks of a line, with its
    own length bound; tab, line feed and carriage return are the only control characters
    allowed (a diary's text may hold several lines)."""
    if isinstance(sentence, str) and len(sentence) <= MAX_TEXT_LENGTH and sentence.strip():
        if refusal := character_refusal(sentence, spacing=True):
            return refusal
        sentence = " ".join(sentence.split())
    return _line_problem(sentence, MAX_TEXT_LENGTH)


def _line_problem(line: Any, longest: int = MAX_LINE_LENGTH) -> str:
    if not isinstance(line, str):
        return "Must be a string."
    if len(line) > longest:
        return f"Must be at most {longest} characters."
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
    the totals per serving (docs/catalogue.md, "Analysing a meal"); ``{"text": "2 eggs
    and toast"}`` -> the same for the items of the sentence, ``meta.items`` their count
    (issue 39.3). One unit of the meter either way."""

    metered_methods = frozenset({"POST"})
    max_body_bytes = settings.API_MAX_ANALYSIS_BODY_BYTES

    def post(self, request: Request) -> Response:
        requested = requested_market(dict(request.query_params.lists()))
        data, meta = analysis_answer(principal=request.auth, requested=requested, body=request.data)
        return Response(
            {"data": data, "meta": meta},
            headers={"Cache-Control": "no-store"},
        )


def analysis_answer(
    *, principal: KeyPrincipal, requested: str, body: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``data`` and ``meta`` of ``POST /v1/analysis`` for ``principal`` (the market it
    reads: catalogue.policies.foods_market of ``requested``) and the JSON ``body``; the
    API view and the dashboard's playground answer through it. Raises the problems the
    API answers (``InvalidIngredients``, ``InvalidParameter``, ``MarketNotSelected``)."""
    market = policies.foods_market(principal=principal, requested=requested)
    asked = analysis_request(body)
    items: list[str] | None = None
    if asked.found is not None:
        items, analysis = sentence_run(
            found=asked.found, market=market, nutrition_type=asked.nutrition_type
        )
    else:
        analysis = analysis_run(
            lines=asked.lines, market=market, nutrition_type=asked.nutrition_type
        )
    matched = sum(1 for line in analysis.lines if line["status"] == "matched")
    data: dict[str, Any] = {"ingredients": analysis.lines, "totals": analysis.totals}
    bases: dict[str, Any] = {"totals": analysis.totals}
    if asked.servings is not None:
        bases["per_serving"] = data["per_serving"] = per_serving(analysis.totals, asked.servings)
        basis = f"per serving (1 of {asked.servings})"
        data["label"] = labels.label(data["per_serving"], market, basis=basis)
    else:
        data["label"] = labels.label(analysis.totals, market, basis="whole recipe")
    data["daily_values"] = labels.daily_values_by(market, bases)
    meta: dict[str, Any] = {
        "market": market,
        "lines": len(analysis.lines),
        "matched": matched,
        "servings": asked.servings,
        "nutrition_type": asked.nutrition_type,
        "incomplete_nutrients": analysis.incomplete,
    }
    if items is not None:
        meta["items"] = len(items)
    return data, meta
