"""Prometheus metrics (issue 7.3): what the service counts, and the /metrics view.

Every metric is defined here, so the whole list is visible at a glance:

| metric | type | labels |
|---|---|---|
| ``foodservice_requests_total`` | counter | endpoint (route name), method, status, tier |
| ``foodservice_request_duration_seconds`` | histogram | endpoint |
| ``foodservice_unauthorized_total`` | counter | (none): the 401s |
| ``foodservice_throttled_total`` | counter | kind: ``quota-exceeded`` / ``burst-limit-exceeded`` |
| ``foodservice_meter_duration_seconds`` | histogram | backend: ``redis`` / ``memory`` |
| ``foodservice_redis_errors_total`` | counter | component: ``meter``, ``readyz``, ... |

The request metrics are recorded by ``foodservice.http.requestlog.RequestLogMiddleware``;
the meter calls ``meter_timer`` around each consume and ``redis_error`` when Redis fails.

Multi-process: under gunicorn, ``gunicorn.conf.py`` points ``PROMETHEUS_MULTIPROC_DIR``
at a fresh directory before any worker imports this module, so every worker writes its
values to memory-mapped files there and ``/metrics`` (served by any one worker) sums
them all. Without it (runserver, tests) the values live in this process's registry.

``/metrics`` is not public: it answers 404 unless ``METRICS_TOKEN`` is set, and then
only to ``Authorization: Bearer <METRICS_TOKEN>`` (anything else gets a 401).
"""

from __future__ import annotations

import hmac
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as _multiprocess

REQUESTS = Counter(
    "foodservice_requests",
    "HTTP requests answered, by route name (never the raw path), method, status and tier.",
    ["endpoint", "method", "status", "tier"],
)
REQUEST_SECONDS = Histogram(
    "foodservice_request_duration_seconds",
    "Time from the first middleware to the response, by route name.",
    ["endpoint"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
UNAUTHORIZED = Counter("foodservice_unauthorized", "401 answers (spec 5.2).")
THROTTLED = Counter("foodservice_throttled", "429 answers by problem kind (spec 7).", ["kind"])
METER_SECONDS = Histogram(
    "foodservice_meter_duration_seconds",
    "Time of one meter decision (burst and quota, one round trip on Redis).",
    ["backend"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)
REDIS_ERRORS = Counter(
    "foodservice_redis_errors",
    "Redis calls that failed (unreachable, timed out, refused), by component.",
    ["component"],
)

NO_TIER = "none"  # the tier label of a request without an authenticated key


def observe_request(
    *, endpoint: str, method: str, status: int, tier: str | None, seconds: float
) -> None:
    """Count one answered request. ``endpoint`` must be a route name (bounded label set)."""
    REQUESTS.labels(endpoint, method, str(status), tier or NO_TIER).inc()
    REQUEST_SECONDS.labels(endpoint).observe(seconds)
    if status == 401:
        UNAUTHORIZED.inc()


def observe_throttled(*, kind: str) -> None:
    """Count one 429 of problem ``kind`` (``quota-exceeded`` or ``burst-limit-exceeded``)."""
    THROTTLED.labels(kind).inc()


@contextmanager
def meter_timer(*, backend: str) -> Iterator[None]:
    """Time the enclosed meter decision into ``foodservice_meter_duration_seconds``.
    The time is recorded whether the block returns or raises."""
    start = time.perf_counter()
    try:
        yield
    finally:
        METER_SECONDS.labels(backend).observe(time.perf_counter() - start)


def redis_error(*, component: str) -> None:
    """Count one failed Redis call of ``component`` (e.g. ``meter``)."""
    REDIS_ERRORS.labels(component).inc()


def exposition() -> bytes:
    """The text exposition of every metric: summed over all gunicorn workers in
    multi-process mode, this process's registry otherwise."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        _multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest(REGISTRY)


def token_allows(header: str, token: str) -> bool:
    """True when ``header`` is ``Bearer <token>`` (constant-time) and a token is set."""
    scheme, _, given = header.strip().partition(" ")
    if not token or scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())


@never_cache
@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """``GET /metrics``. 404 while ``METRICS_TOKEN`` is unset (metrics are off), 401
    without the bearer token, else the exposition. Unauthenticated by API key and
    unmetered: it is not under /v1."""
    token = settings.METRICS_TOKEN
    if not token:
        raise Http404("metrics are disabled")
    if not token_allows(request.headers.get("Authorization", ""), token):
        response = HttpResponse("unauthorized\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
