"""Metered API views and GET /v1/usage."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class MeteredAPIView(APIView):
    """Base of every metered data read (spec 8): every view under /v1 that reads data
    subclasses it. Metering is wired in by the metering app."""


class UsageView(APIView):
    """``GET /v1/usage``: unmetered (spec 4)."""

    def get(self, request: Request) -> Response:
        raise NotImplementedError
