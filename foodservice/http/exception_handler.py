"""Turns every exception raised under /v1 into a problem response (spec 7).

DRF calls ``problem_exception_handler`` for exceptions raised in API views; the
``ProblemMiddleware`` and the ``handler*`` views in ``foodservice.urls`` cover the
rest (URL resolution, errors outside DRF). Unknown exceptions are logged with their
trace server-side and answered with a bare 500 problem.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpResponse
from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.views import set_rollback

from core import metrics, problems
from core.redis import UNREACHABLE

logger = logging.getLogger("foodservice.http.errors")


def problem_for(exc: BaseException) -> problems.Problem:
    """The problem a client sees for ``exc``. Never carries internal text."""
    if isinstance(exc, problems.Problem):
        return exc
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        return problems.Unauthorized()
    if isinstance(exc, drf.NotFound | Http404):
        return problems.NotFound()
    if isinstance(exc, drf.MethodNotAllowed):
        return problems.MethodNotAllowed()
    if isinstance(exc, drf.UnsupportedMediaType):
        return problems.UnsupportedMediaType()
    if isinstance(exc, drf.ParseError):
        return problems.MalformedRequest(str(exc.detail))
    if isinstance(exc, SuspiciousOperation):
        return problems.MalformedRequest()
    if isinstance(exc, drf.ValidationError):
        return problems.ValidationFailed(_flatten(exc.detail))
    if isinstance(exc, drf.PermissionDenied | PermissionDenied):
        return problems.Forbidden()
    if isinstance(exc, OperationalError | InterfaceError):
        # The database cannot be reached (down, restarting, failing over): a 503 the
        # client may retry (issue 7.6).
        logger.warning("database unavailable: %s", type(exc).__name__)
        return problems.ServiceUnavailable()
    if isinstance(exc, UNREACHABLE):
        # Redis unreachable anywhere in a request: the same 503, never a 500.
        metrics.redis_error(component="request")
        logger.warning("redis unavailable: %s", type(exc).__name__)
        return problems.ServiceUnavailable()
    logger.error("unhandled exception", exc_info=(type(exc), exc, exc.__traceback__))
    return problems.InternalError()


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF's ``EXCEPTION_HANDLER``: always returns a problem response, never ``None``."""
    problem = problem_for(exc)
    set_rollback()
    response = Response(problem.body(), status=problem.status_code, headers=problem.headers())
    response.content_type = problems.PROBLEM_CONTENT_TYPE
    return response


def problem_response(problem: problems.Problem) -> HttpResponse:
    """A plain Django response for a problem, for code outside DRF's views."""
    response = HttpResponse(
        problem.encoded(), status=problem.status_code, content_type=problems.PROBLEM_CONTENT_TYPE
    )
    for name, value in problem.headers().items():
        response[name] = value
    return response


def _flatten(detail: Any, prefix: str = "") -> dict[str, str]:
    """DRF's nested ValidationError detail as ``{"field.sub": "message"}``."""
    if isinstance(detail, dict):
        out: dict[str, str] = {}
        for key, value in detail.items():
            name = str(key) if key != drf.api_settings.NON_FIELD_ERRORS_KEY else "body"
            out.update(_flatten(value, f"{prefix}{name}" if not prefix else f"{prefix}.{name}"))
        return out
    if isinstance(detail, list):
        messages = [str(item) for item in detail if not isinstance(item, dict | list)]
        if messages:
            return {prefix or "body": " ".join(messages)}
        out = {}
        for item in detail:
            out.update(_flatten(item, prefix))
        return out
    return {prefix or "body": str(detail)}
