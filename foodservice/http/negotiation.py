"""Content negotiation for the API: it always answers JSON."""

from __future__ import annotations

from typing import Any

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request


class JSONOnlyNegotiation(DefaultContentNegotiation):
    """The API has one representation, so an ``Accept`` header never turns a read into a
    406: the first (JSON) renderer is always chosen."""

    def select_renderer(
        self, request: Request, renderers: list[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, Any]:
        renderer = renderers[0]
        return renderer, renderer.media_type
