"""Response fix-ups that hold for every path: /v1 answers stay problem+json even when an
exception escapes DRF's views, and a 304 carries no Content-Length."""

from __future__ import annotations

from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_cache_control, patch_vary_headers

from catalogue.delivery.conditional import VARY
from core import problems
from core.problems import is_api_path
from core.redis import UNREACHABLE
from foodservice.http.exception_handler import problem_for, problem_response

_UNAVAILABLE = (problems.ServiceUnavailable, OperationalError, InterfaceError, *UNREACHABLE)


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


class NotModifiedMiddleware:
    """Drops ``Content-Length`` from every 304 (issue 14.1).

    RFC 9110 15.4.5 lets a 304 carry ``Content-Length`` only when it equals the 200's;
    Django's ``CommonMiddleware`` sets it to the empty body's ``0``, and caches that
    copy the 304's headers into their stored response (requests-cache) then serve the
    full body as ``Content-Length: 0``. Listed before ``CommonMiddleware``, so it runs
    after it on the way out.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 304 and response.has_header("Content-Length"):
            del response.headers["Content-Length"]
        return response


class PerAccountCacheMiddleware:
    """Every /v1 answer is private to the key that asked (issue 24.4): its body depends on
    the key's account (usage, market, a Taster's market-scoped records and searches,
    401/404/429 problems), so each carries ``Cache-Control: private`` and ``Vary`` on the
    key headers, and a shared cache (requests-cache, hishel on a shared store) never
    serves it to another key. Answers that set no Cache-Control get ``private,
    no-cache`` (store it for this key, revalidate before reuse); the catalogue's own
    ``private, max-age=60`` stands. Listed before ``ProblemMiddleware``, so it sees the
    problems that middleware renders too.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if is_api_path(request):
            if response.has_header("Cache-Control"):
                patch_cache_control(response, private=True)
            else:
                response["Cache-Control"] = "private, no-cache"
            patch_vary_headers(response, VARY)
        return response
