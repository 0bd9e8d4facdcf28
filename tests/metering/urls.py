"""The project's routes plus minimal metered views, for the metering tests (the real
catalogue views are built elsewhere; these stand in for every kind of outcome)."""

from __future__ import annotations

from django.db import OperationalError
from django.urls import path
from rest_framework.request import Request
from rest_framework.response import Response

from core import problems
from foodservice.urls import handler400, handler403, handler404, handler500
from foodservice.urls import urlpatterns as project_urlpatterns
from metering.api import MeteredAPIView

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]

ETAG = '"v1"'


class RecordView(MeteredAPIView):
    """A stand-in data read: 200 with an ETag, 304 on a matching If-None-Match (built
    by the view itself, as the catalogue does), 404 for id 0, 403 for id 403, a bug
    (500) for id 500 and the database unreachable (503) for id 503."""

    def get(self, request: Request, pk: int) -> Response:
        if pk == 500:
            raise RuntimeError("a bug in a view")
        if pk == 503:
            raise OperationalError("connection refused")
        if pk == 0:
            raise problems.NotFound()
        if pk == 403:
            raise problems.MarketNotSelected()
        if request.headers.get("If-None-Match") == ETAG:
            return Response(status=304, headers={"ETag": ETAG})
        return Response({"data": {"id": pk}}, headers={"ETag": ETAG})


urlpatterns = [
    path("v1/test-records/<int:pk>", RecordView.as_view()),
    *project_urlpatterns,
]
