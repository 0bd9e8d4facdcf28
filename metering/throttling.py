"""The metering throttle (spec 7, 8): one decision per metered request, taken once.

DRF's ``check_throttles`` asks every throttle class in turn and lets each passing one
record the request even when another refuses it, and its ``throttled()`` knows one kind
of 429 without headers. So there is exactly one throttle, ``MeterThrottle``: it asks the
meter once for burst and quota together (backends.py), records the decision on the
request for the response headers, and raises the quota or burst problem itself.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime

from django.conf import settings
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from core.problems import BurstLimitExceeded, QuotaExceeded, ServiceUnavailable
from core.requestnotes import notes_of
from keys.authentication import authenticate_again, unchecked_epoch
from keys.principal import KeyPrincipal
from metering.backends import get_meter
from metering.decisions import MeterDecision
from metering.headers import ratelimit_headers
from metering.meter import MeterUnavailable
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


def meter_now() -> datetime:
    """The meter's clock (a named seam: tests control it with time-machine)."""
    return timezone.now()


def meter_decision(request: Request) -> MeterDecision | None:
    """The decision ``MeterThrottle`` noted for ``request``, if it was metered."""
    return notes_of(request).meter_decision


class MeterThrottle(BaseThrottle):
    """``allow_request`` consumes once per request (a second call is a no-op), records
    the ``MeterDecision`` in the request's notes (``meter_decision``) and raises ``QuotaExceeded``
    (with Retry-After and the RateLimit headers) or ``BurstLimitExceeded`` (with only
    Retry-After). A refused request is not counted. When Redis is unreachable,
    ``METER_FAILURE_POLICY`` decides: "closed" raises ``ServiceUnavailable`` (503);
    "open" admits the request unmetered (no RateLimit headers) and logs a warning."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        principal = request.auth
        if not _metered(request, view, principal):
            if unchecked_epoch(request) is not None:  # no meter to check it: check it here
                authenticate_again(request)
            return True
        units = getattr(view, "meter_units", lambda request: 1)(request)
        decision = _decide(request, principal, carry=_carry(request, view), units=units)
        if decision is None:  # the meter is down and the policy fails open
            return True
        notes_of(request).meter_decision = decision
        _raise_refusal(decision)
        return True

    def wait(self) -> float | None:
        return None


def _metered(request: Request, view: APIView, principal: object) -> bool:
    """Whether the request is still to be metered (a second call is a no-op)."""
    return (
        settings.METERING_ENABLED
        and request.method in getattr(view, "metered_methods", METERED_METHODS)
        and isinstance(principal, KeyPrincipal)
        and meter_decision(request) is None
    )


def _carry(request: Request, view: APIView) -> str | None:
    """The Redis key the view asks the meter to read in its round trip, if any
    (``MeteredAPIView.meter_carry``), when the meter carries."""
    ask = getattr(view, "meter_carry", None)
    if ask is None or not get_meter().carries:
        return None
    return ask(request)


def _decide(
    request: Request, principal: KeyPrincipal, *, carry: str | None = None, units: int = 1
) -> MeterDecision | None:
    """The meter's decision; None when it is unreachable and the policy fails open.

    A principal answered unchecked is checked by the meter in the same step (its
    ``epoch``), or read again first when the meter checks no epochs. When the key, its
    account's tier or market changed since this worker read it, the meter decides
    nothing (``StalePrincipal``): it is read again (a 401 if it no longer
    authenticates) and the decision retried, at most ``STALE_RETRIES`` times."""
    epoch = unchecked_epoch(request)
    if epoch is not None and not get_meter().checks_epochs:
        principal, epoch = authenticate_again(request)
        epoch = None
    for _ in range(STALE_RETRIES):
        try:
            return usage_consume(
                principal=principal, now=meter_now(), epoch=epoch, carry=carry, units=units
            )
        except StalePrincipal:
            principal, epoch = authenticate_again(request)
        except MeterUnavailable as exc:
            if epoch is not None:  # the principal cannot be checked: read it again
                authenticate_again(request)
            _meter_down(exc)
            return None
    raise ServiceUnavailable("The key is changing; retry in a few seconds.")


def _raise_refusal(decision: MeterDecision) -> None:
    """The quota 429 (with the RateLimit headers) or the burst 429 of a refusal."""
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


class _FailOpenWarnings:
    """Counts requests served unmetered and logs them at most every
    ``WARN_EVERY_SECONDS`` per process (no log flood while Redis is down)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.last = 0.0
        self.unmetered = 0

    def served_unmetered(self, exc: MeterUnavailable) -> None:
        with self.lock:
            self.unmetered += 1
            if time.monotonic() - self.last < WARN_EVERY_SECONDS:
                return
            count, self.last, self.unmetered = self.unmetered, time.monotonic(), 0
        logger.warning(
            "meter unreachable, failing open: %d request(s) served unmetered: %s", count, exc
        )


_fail_open = _FailOpenWarnings()


def _meter_down(exc: MeterUnavailable) -> None:
    """Applies ``METER_FAILURE_POLICY``: "closed" raises the 503, "open" returns (the
    request is served unmetered) after a warning at most every ``WARN_EVERY_SECONDS``."""
    if settings.METER_FAILURE_POLICY != "open":
        logger.error("meter unreachable, failing closed: %s", exc)
        raise ServiceUnavailable("Metering is briefly unavailable; retry in a few seconds.")
    _fail_open.served_unmetered(exc)
