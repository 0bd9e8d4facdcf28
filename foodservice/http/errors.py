"""Django's error views: problem+json under /v1, Django's own pages elsewhere."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views import defaults
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.views import APIView

from core import problems
from core.problems import is_api_path
from foodservice.http.exception_handler import problem_response


class ApiNotFound(APIView):
    """Catch-all for unknown /v1 paths. Unauthenticated: a wrong path is a 404 problem
    with or without a key."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    http_method_names = ["get", "post", "put", "patch", "delete", "head", "options"]

    def initial(self, request: Request, *args: object, **kwargs: object) -> None:
        super().initial(request, *args, **kwargs)
        raise problems.NotFound()


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api_path(request):
        return problem_response(problems.MalformedRequest())
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api_path(request):
        return problem_response(problems.Forbidden())
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api_path(request):
        return problem_response(problems.NotFound())
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if is_api_path(request):
        return problem_response(problems.InternalError())
    return defaults.server_error(request)
