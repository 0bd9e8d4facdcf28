"""The metering throttle (spec 7, 8): one decision per metered request, taken once.

DRF's ``check_throttles`` asks every throttle class in turn and lets each passing one
record the request even when another refuses it, and its ``throttled()`` knows one kind
of 429 without headers. So there is exactly one throttle, ``MeterThrottle``: it asks the
meter once for burst and quota together (backends.py), records the decision on the
request for the response headers, and raises the quota or burst problem itself.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime

from django.conf import settings
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from foodservice.problems import BurstLimitExceeded, QuotaExceeded, ServiceUnavailable
from keys.principal import KeyPrincipal
from metering.backends import MeterUnavailable
from metering.decisions import MeterDecision
from metering.headers import ratelimit_headers
from metering.services import usage_consume

logger = logging.getLogger("foodservice.metering")

# Reads are metered (spec 1, 8); other methods on a metered view are not data reads.
METERED_METHODS = frozenset({"GET", "HEAD"})
# At most one fail-open warning per process per this many seconds (no log flood).
WARN_EVERY_SECONDS = 10.0


def _now() -> datetime:
    """The meter's clock (a named seam: tests control it with time-machine)."""
    return timezone.now()


def meter_decision(request: Request) -> MeterDecision | None:
    """The decision recorded on ``request`` by ``MeterThrottle``, if it was metered."""
    return getattr(request, "meter_decision", None)


class MeterThrottle(BaseThrottle):
    """``allow_request`` consumes once per request (a second call is a no-op), records
    the ``MeterDecision`` on ``request.meter_decision`` and raises ``QuotaExceeded``
    (with Retry-After and the RateLimit headers) or ``BurstLimitExceeded`` (with only
    Retry-After). A refused request is not counted. When Redis is unreachable,
    ``METER_FAILURE_POLICY`` decides: "closed" raises ``ServiceUnavailable`` (503);
    "open" admits the request unmetered (no RateLimit headers) and logs a warning."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        principal = request.auth
        if (
            not settings.METERING_ENABLED
            or request.method not in METERED_METHODS
            or not isinstance(principal, KeyPrincipal)
            or meter_decision(request) is not None
        ):
            return True
        try:
            decision = usage_consume(principal=principal, now=_now())
        except MeterUnavailable as exc:
            return _meter_down(exc)
        request.meter_decision = decision
        if decision.refused_by == "quota":
            raise QuotaExceeded(
                limit=decision.quota,
                window=decision.window.seconds,
                retry_after=decision.retry_after or 1,
                headers=ratelimit_headers(decision),
            )
        if decision.refused_by == "burst" and decision.bucket is not None:
            raise BurstLimitExceeded(
                limit=decision.bucket.size,
                window=decision.bucket.refill_seconds,
                retry_after=decision.retry_after or 1,
            )
        return True

    def wait(self) -> float | None:
        return None


_last_warning = 0.0
_unmetered_since_warning = 0


def _meter_down(exc: MeterUnavailable) -> bool:
    global _last_warning, _unmetered_since_warning
    if settings.METER_FAILURE_POLICY != "open":
        logger.error("meter unreachable, failing closed: %s", exc)
        raise ServiceUnavailable("Metering is briefly unavailable; retry in a few seconds.")
    _unmetered_since_warning += 1
    if time.monotonic() - _last_warning >= WARN_EVERY_SECONDS:
        logger.warning(
            "meter unreachable, failing open: %d request(s) served unmetered: %s",
            _unmetered_since_warning,
            exc,
        )
        _last_warning, _unmetered_since_warning = time.monotonic(), 0
    return True
