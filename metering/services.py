"""Writes of metering: decide-and-count a request, give a failed one back.

``usage_consume`` is the one call the throttle makes per metered request: one atomic
meter decision (backends.py) that also counts the outcome in the key's hourly bucket.
``usage_refund`` gives back the unit of an admitted request answered 5xx (issue 11.7).
``history.usage_flush`` copies the meter's buckets to the history as absolute values
(issue 19), from the worker's own flusher thread (recorder.py); never from the request
path.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime

from django.conf import settings

from core import metrics
from core.calendar import to_us
from keys.principal import KeyPrincipal
from metering import recorder
from metering.backends import get_meter
from metering.bucket import Bucket
from metering.decisions import MeterDecision, decision_for
from metering.history import usage_seed
from metering.meter import MeterUnavailable, Outcome, Tally
from metering.windows import window_at

logger = logging.getLogger("foodservice.metering")


class StalePrincipal(Exception):
    """The principal's account epoch is no longer current (issue 13): nothing was
    decided; read the key again and retry."""


def usage_consume(
    *,
    principal: KeyPrincipal,
    now: datetime,
    epoch: str | None = None,
    carry: str | None = None,
    units: int = 1,
) -> MeterDecision:
    """Decide ``principal``'s request at ``now`` against its account's quota and burst
    bucket, as one atomic step that also counts the outcome (admitted, or refused by
    the quota or the burst limit) in the key's hourly bucket; a refusal changes neither
    the quota nor the bucket. With ``epoch`` (a meter that ``checks_epochs``), only
    while it is still the account's epoch, else ``StalePrincipal`` and nothing changes
    (issue 13). With ``carry``, a meter that ``carries`` also reads that Redis key in
    the decision's round trip: ``MeterDecision.carried`` (issue 28.5). ``units``: what
    the request costs (issue 42.3: a batch of foods, one a food), admitted or refused
    whole in the same one step (``Meter.consume``). Raises
    ``MeterUnavailable`` when Redis cannot be reached."""
    window = window_at(principal.limits, principal.billing_anchor, now)
    bucket = Bucket.for_limits(principal.limits)

    def consume(peek: bool = False) -> Tally:
        return get_meter().consume(
            account_id=principal.account_id,
            window=window,
            bucket=bucket,
            now_us=to_us(now),
            seed=lambda: usage_seed(account_id=principal.account_id, window=window),
            key_id=principal.key_id,
            peek=peek,
            # A peek decides nothing and follows a consume that checked the epoch.
            epoch=None if peek else epoch,
            carry=None if peek else carry,
            units=units,
        )

    with metrics.meter_timer(backend=settings.METER_BACKEND):
        tally = consume()
    if tally.outcome == Outcome.STALE:
        raise StalePrincipal()
    if tally.outcome == Outcome.ADMITTED and tally.used >= window.quota and window.kind == "day":
        # This request took the last of a rolling day (issue 14.4): when the next one is
        # admitted depends on the hourly counts, which a peek returns. A peek decides and
        # counts nothing (not even a refusal in the key's outcome buckets).
        probe = consume(peek=True)
        if probe.outcome == Outcome.PEEKED and probe.hour == tally.hour:
            tally = replace(tally, hours=probe.hours)
    recorder.flusher.ensure_running(settings.METER_FLUSH_SECONDS)
    return decision_for(tally, window=window, bucket=bucket, now=now, units=units)


def usage_refund(*, principal: KeyPrincipal, decision: MeterDecision) -> bool:
    """Give back the units of ``principal``'s request admitted by ``decision`` and then
    answered 5xx (issue 11.7): one meter call, on the error path only. It counts in
    the key's ``failed`` bucket instead. Returns False when nothing was given back
    (not admitted, or the meter lost the request's state since); never raises for an
    unreachable meter (the failure is logged: the answer is a 5xx already)."""
    if not decision.allowed or decision.hour is None:
        return False
    try:
        return get_meter().refund(
            account_id=principal.account_id,
            key_id=principal.key_id,
            hour=decision.hour,
            units=decision.units,
        )
    except MeterUnavailable as exc:
        logger.warning("meter unreachable: a failed request could not be given back: %s", exc)
        return False
