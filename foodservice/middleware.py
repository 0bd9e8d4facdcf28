"""Keeps /v1 answers problem+json even when an exception escapes DRF's views."""

from __future__ import annotations

from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from foodservice import problems
from foodservice.exception_handler import is_api_path, problem_for, problem_response
from keys.cache import REDIS_UNREACHABLE

_UNAVAILABLE = (problems.ServiceUnavailable, OperationalError, InterfaceError, *REDIS_UNREACHABLE)


class ProblemMiddleware:
    """Renders any exception raised under /v1 outside a DRF view as a problem.

    Runs before Django's technical error pages, so not even ``DEBUG=True`` shows a
    trace to an API client.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if is_api_path(request):
            return problem_response(problem_for(exception))
        if isinstance(exception, _UNAVAILABLE):
            # The dashboard and the admin: a part is down (Redis or the database
            # unreachable, or a service refused the change), a page that says so and to
            # retry rather than a 500 (issue 11.4). Services write in one transaction,
            # so the failed request changed nothing.
            problem = problem_for(exception)
            response = render(request, "503.html", {"detail": problem.detail}, status=503)
            response["Retry-After"] = problem.headers()["Retry-After"]
            return response
        return None
