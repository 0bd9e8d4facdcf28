"""Writes of metering: decide-and-count a request.

``usage_consume`` is the one call the throttle makes per metered request: one atomic
meter decision (backends.py), then, when admitted, one in-memory increment of the
key's hour (``history.buffer``). ``history.usage_flush`` writes those increments to the
history, amortised, from the worker's own flusher thread (recorder.py); never from the
request path.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings

from foodservice import metrics
from keys.principal import KeyPrincipal
from metering import history, recorder
from metering.backends import Outcome, get_meter
from metering.bucket import Bucket
from metering.decisions import MeterDecision, decision_for
from metering.history import usage_seed
from metering.windows import to_us, window_at

logger = logging.getLogger("foodservice.metering")


def usage_consume(*, principal: KeyPrincipal, now: datetime) -> MeterDecision:
    """Decide ``principal``'s request at ``now`` against its account's quota and burst
    bucket, as one atomic step, and count it if admitted (a refused request changes
    nothing). Raises ``MeterUnavailable`` when Redis cannot be reached."""
    window = window_at(principal.limits, principal.billing_anchor, now)
    bucket = Bucket.for_limits(principal.limits)
    with metrics.meter_timer(backend=settings.METER_BACKEND):
        tally = get_meter().consume(
            account_id=principal.account_id,
            window=window,
            bucket=bucket,
            now_us=to_us(now),
            seed=lambda: usage_seed(account_id=principal.account_id, window=window),
        )
    if tally.outcome == Outcome.ADMITTED:
        history.buffer.add(
            key_id=principal.key_id, account_id=principal.account_id, hour=tally.hour, at=now
        )
        recorder.flusher.ensure_running(settings.METER_FLUSH_SECONDS)
    return decision_for(tally, window=window, bucket=bucket, now=now)
