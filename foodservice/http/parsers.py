"""Request body parsing for the API: bounded in size and depth."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, plus: bodies over ``API_MAX_BODY_BYTES`` and JSON nested too
    deep for Python's decoder (a ``RecursionError``, not a ``ValueError``) are a 400
    ``malformed-request`` problem instead of a 500. A view may allow bigger bodies with
    a ``max_body_bytes`` attribute (``POST /v1/analysis``: 100 lines of 200 characters)."""

    def parse(
        self,
        stream: IO[bytes],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        view = (parser_context or {}).get("view")
        limit = getattr(view, "max_body_bytes", None) or settings.API_MAX_BODY_BYTES
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise ParseError(f"The request body is larger than {limit} bytes.")
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return json.loads(raw.decode(encoding), parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise ParseError("The request body is not valid JSON.") from None


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")
