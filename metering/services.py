"""Writes of metering: decide-and-count a request, persist the usage history.

``usage_consume`` is the one call the throttle makes per metered request: one atomic
meter decision (backends.py), then, when admitted, one in-memory increment of the
key's hour (recorder.py). ``usage_flush`` writes those increments to the history,
amortised, from the worker's own flusher thread; never from the request path.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q

from foodservice import metrics
from keys.models import ApiKey
from keys.principal import KeyPrincipal
from metering import recorder
from metering.backends import Outcome, get_meter
from metering.bucket import Bucket
from metering.decisions import MeterDecision, decision_for
from metering.models import KeyUsageHour
from metering.recorder import Pending
from metering.selectors import usage_seed
from metering.windows import hour_start, to_us, window_at

logger = logging.getLogger("foodservice.metering")

UPSERT_BATCH = 500


class StalePrincipal(Exception):
    """The principal's account epoch is no longer current (issue 13): nothing was
    decided; read the key again and retry."""


def usage_consume(
    *, principal: KeyPrincipal, now: datetime, epoch: str | None = None
) -> MeterDecision:
    """Decide ``principal``'s request at ``now`` against its account's quota and burst
    bucket, as one atomic step, and count it if admitted (a refused request changes
    nothing). With ``epoch`` (a meter that ``checks_epochs``), only while it is still
    the account's epoch, else ``StalePrincipal`` and nothing changes. Raises
    ``MeterUnavailable`` when Redis cannot be reached."""
    window = window_at(principal.limits, principal.billing_anchor, now)
    bucket = Bucket.for_limits(principal.limits)
    with metrics.meter_timer(backend=settings.METER_BACKEND):
        tally = get_meter().consume(
            account_id=principal.account_id,
            window=window,
            bucket=bucket,
            now_us=to_us(now),
            seed=lambda: usage_seed(account_id=principal.account_id, window=window),
            epoch=epoch,
        )
    if tally.outcome == Outcome.STALE:
        raise StalePrincipal()
    if tally.outcome == Outcome.ADMITTED:
        recorder.buffer.add(
            key_id=principal.key_id, account_id=principal.account_id, hour=tally.hour, at=now
        )
        recorder.flusher.ensure_running(settings.METER_FLUSH_SECONDS)
    return decision_for(tally, window=window, bucket=bucket, now=now)


def usage_flush() -> int:
    """Write this process's pending usage to the history: add each key's hourly counts
    (one upsert per batch, safe against every other worker doing the same) and move
    ``ApiKey.last_used_at`` forward. Returns the number of (key, hour) rows written. On
    failure the counts are put back for the next flush and the error is raised."""
    pending = recorder.buffer.drain()
    if not pending:
        return 0
    try:
        return _write(pending)
    except Exception:
        recorder.buffer.restore(pending)
        raise


def _write(pending: Pending) -> int:
    key_ids = {key_id for key_id, _, _ in pending.counts} | set(pending.last_used)
    # Keys deleted (with their account) since the request was counted have no history.
    alive = set(ApiKey.objects.filter(pk__in=key_ids).values_list("pk", flat=True))
    rows = [
        (key_id, account_id, hour_start(hour), n)
        for (key_id, account_id, hour), n in sorted(pending.counts.items())
        if key_id in alive
    ]
    with transaction.atomic():
        for start in range(0, len(rows), UPSERT_BATCH):
            _upsert(rows[start : start + UPSERT_BATCH])
        for key_id, at in pending.last_used.items():
            if key_id in alive:
                ApiKey.objects.filter(pk=key_id).filter(
                    Q(last_used_at__isnull=True) | Q(last_used_at__lt=at)
                ).update(last_used_at=at)
    return len(rows)


def _upsert(rows: list[tuple[int, int, datetime, int]]) -> None:
    """``INSERT ... ON CONFLICT (key, hour) DO UPDATE SET count = count + new``: one
    statement, atomic per row, on PostgreSQL and SQLite alike."""
    if not rows:
        return
    qn = connection.ops.quote_name
    table = qn(KeyUsageHour._meta.db_table)
    key, account, hour, count = (qn(c) for c in ("key_id", "account_id", "hour", "count"))
    values = ", ".join(["(%s, %s, %s, %s)"] * len(rows))
    sql = (
        f"INSERT INTO {table} ({key}, {account}, {hour}, {count}) VALUES {values} "  # noqa: S608
        f"ON CONFLICT ({key}, {hour}) DO UPDATE SET {count} = {table}.{count} + excluded.{count}"
    )
    params: list[object] = []
    for key_id, account_id, moment, n in rows:
        params += [key_id, account_id, connection.ops.adapt_datetimefield_value(moment), n]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
