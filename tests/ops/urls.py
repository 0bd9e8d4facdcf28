"""The project's routes plus views that answer the two 429s, for the metrics tests."""

from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import problems
from foodservice.urls import handler400, handler403, handler404, handler500, urlpatterns

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


class QuotaView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    def get(self, request: Request) -> Response:
        raise problems.QuotaExceeded(limit=250, window=86400, retry_after=60)


class BurstView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    def get(self, request: Request) -> Response:
        raise problems.BurstLimitExceeded(limit=10, window=10, retry_after=1)


urlpatterns = [
    path("v1/test-quota", QuotaView.as_view(), name="test-quota"),
    path("v1/test-burst", BurstView.as_view(), name="test-burst"),
    *urlpatterns,
]
