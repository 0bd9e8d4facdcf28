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

from foodservice.core.problems import BurstLimitExceeded, QuotaExceeded, ServiceUnavailable
from keys.authentication import authenticate_again, unchecked_epoch
from keys.principal import KeyPrincipal
from metering.backends import MeterUnavailable, get_meter
from metering.decisions import MeterDecision
from metering.headers import ratelimit_headers
from metering.services import StalePrincipal, usage_consume

logger = logging.getLogger("foodservice.metering")

# Reads are metered (spec 1, 8); other methods on a metered view are not data reads,
# unless the view names them in ``metered_methods`` (POST /v1/analysis is a read).
METERED_METHODS = frozenset({"GET", "HEAD"})
# At most one fail-open warning per process per this many seconds (no log flood).
WARN_EVERY_SECONDS = 10.0
# Reads of a changing key before giving up with a 503 (each needs a change committing
# between reading the key and the meter's decision: more than one is very unlikely).
STALE_RETRIES = 4


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
        epoch = unchecked_epoch(request)
        if (
            not settings.METERING_ENABLED
            or request.method not in getattr(view, "metered_methods", METERED_METHODS)
            or not isinstance(principal, KeyPrincipal)
            or meter_decision(request) is not None
        ):
            if epoch is not None:  # no meter to check the key's principal: check it here
                authenticate_again(request)
            return True
        if epoch is not None and not get_meter().checks_epochs:
            principal, epoch = authenticate_again(request)
            epoch = None
        for _ in range(STALE_RETRIES):
            try:
                decision = usage_consume(principal=principal, now=_now(), epoch=epoch)
                break
            except StalePrincipal:
                # The key, its account's tier or market changed since this worker read
                # it: read it again (a 401 if it no longer authenticates) and retry.
                principal, epoch = authenticate_again(request)
            except MeterUnavailable as exc:
                if epoch is not None:  # the principal cannot be checked: read it again
                    authenticate_again(request)
                return _meter_down(exc)
        else:
            raise ServiceUnavailable("The key is changing; retry in a few seconds.")
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
