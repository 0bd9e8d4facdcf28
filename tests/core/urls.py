"""The project's routes plus views that fail on purpose, for the error tests."""

import redis
from django.http import HttpRequest, HttpResponse
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from foodservice.urls import handler400, handler403, handler404, handler500, urlpatterns

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]

LEAK = "internal detail: password=hunter2 at /srv/app.py line 42"


class ExplodingApiView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    def get(self, request: Request) -> Response:
        raise RuntimeError(LEAK)


def exploding_plain_view(request: HttpRequest) -> HttpResponse:
    raise RuntimeError(LEAK)


class RedisDownApiView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    def get(self, request: Request) -> Response:
        raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379")


urlpatterns = [
    path("v1/explode", ExplodingApiView.as_view()),
    path("v1/explode-plain", exploding_plain_view),
    path("v1/redis-down", RedisDownApiView.as_view()),
    *urlpatterns,
]
