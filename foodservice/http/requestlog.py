"""One structured log line per request, and the request id (issue 7.4).

``RequestLogMiddleware`` runs first, so it times and sees every response (static files,
redirects, problems, the dashboard). For each request it

- takes a sane incoming ``X-Request-ID`` or makes one, keeps it on
  the request's notes (``notes_of``) and returns it as the ``X-Request-ID`` response header;
- logs one record on the ``foodservice.requests`` logger with the fields of
  ``core.logformat.REQUEST_FIELDS``;
- counts it into the Prometheus metrics (core/metrics.py).

Never logged: a header value, the query string, a body. The path is logged with
anything shaped like an API key replaced by ``[redacted]``, and the formatters
(core/logformat.py) apply the same redaction to every line they write.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from core import metrics
from core.logformat import holds_secret, redact
from core.requestnotes import notes_of
from keys.principal import KeyPrincipal
from metering.outcomes import outcome_note

logger = logging.getLogger("foodservice.requests")

REQUEST_ID_HEADER = "X-Request-ID"
# Accepted from a client or proxy: short, printable, no spaces or separators that could
# forge a second log field. Anything else is replaced by a fresh id.
_SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{8,128}", re.ASCII)
_PROBLEM_PREFIX = "/problems/"


def request_id_for(incoming: str | None) -> str:
    """The incoming id when it is sane and holds no secret, else a fresh uuid4 (hex)."""
    if incoming and _SANE_REQUEST_ID.fullmatch(incoming) and not holds_secret(incoming):
        return incoming
    return uuid.uuid4().hex


def endpoint_name(request: HttpRequest) -> str:
    """The route's name (``v1:market``), the route pattern of an unnamed route, or
    ``static`` / ``unmatched``: never the raw path, so the metric labels stay bounded."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "static" if request.path_info.startswith("/static/") else "unmatched"
    return match.view_name or match.route or "unmatched"


class RequestLogMiddleware:
    """Times, identifies, logs and counts every request (see the module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        start = time.perf_counter()
        notes = notes_of(request)
        notes.request_id = request_id_for(request.headers.get(REQUEST_ID_HEADER))
        response = self.get_response(request)
        seconds = time.perf_counter() - start
        response[REQUEST_ID_HEADER] = notes.request_id
        fields = request_fields(request, response, seconds=seconds)
        metrics.observe_request(
            endpoint=fields["endpoint"],
            method=fields["method"],
            status=fields["status"],
            tier=fields["tier"],
            seconds=seconds,
        )
        kind = problem_kind(response)
        if response.status_code == 429 and kind:
            metrics.observe_throttled(kind=kind)
        logger.info("request", extra=fields)
        try:  # the usage log of the request's key (issue 40.3); never fails the answer
            outcome_note(request, response, seconds=seconds, kind=kind)
        except Exception:
            logger.exception("could not note the request for the usage log")
        return response


def request_fields(request: HttpRequest, response: HttpResponse, *, seconds: float) -> dict:
    """The fields of the request's log line. The principal and the meter decision are
    read from the request's notes (never ``drf_request.auth``, which would run
    authentication again when it failed, the database down, here outside the view's
    error handling: a 500, issue 7.6)."""
    notes = notes_of(request)
    principal = notes.principal
    if not isinstance(principal, KeyPrincipal):
        principal = None
    return {
        "method": request.method,
        "path": redact(request.path),
        "endpoint": endpoint_name(request),
        "status": response.status_code,
        "latency_ms": round(seconds * 1000, 2),
        "account_id": principal.account_id if principal else None,
        "key_id": principal.key_id if principal else None,
        "tier": principal.tier if principal else None,
        "metered": notes.meter_decision is not None,
        "request_id": notes.request_id,
    }


def problem_kind(response: HttpResponse) -> str | None:
    """The ``<kind>`` of a DRF problem response (``type: /problems/<kind>``), else None."""
    data = getattr(response, "data", None)
    kind = data.get("type") if isinstance(data, dict) else None
    if isinstance(kind, str) and kind.startswith(_PROBLEM_PREFIX):
        return kind[len(_PROBLEM_PREFIX) :]
    return None
