"""Writes of metering: decide-and-count a request, give a failed one back, persist the
usage history.

``usage_consume`` is the one call the throttle makes per metered request: one atomic
meter decision (backends.py) that also counts the outcome in the key's hourly bucket.
``usage_refund`` gives back the unit of an admitted request answered 5xx (issue 11.7).
``usage_flush`` copies the meter's buckets to the history as absolute values (issue 19),
from the worker's own flusher thread (recorder.py); never from the request path.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from foodservice import metrics
from keys.models import ApiKey
from keys.principal import KeyPrincipal
from metering import recorder
from metering.backends import AccountUsage, MeterUnavailable, Outcome, Tally, get_meter
from metering.bucket import Bucket
from metering.decisions import MeterDecision, decision_for
from metering.models import KeyUsageHour
from metering.selectors import usage_seed
from metering.signals import usage_flushed
from metering.windows import EPOCH, US, hour_of, hour_start, to_us, window_at

logger = logging.getLogger("foodservice.metering")

UPSERT_BATCH = 500
# Buckets of the current and the previous hour stay in the meter after a flush (a
# refund may still reach a request admitted just before the top of the hour); older
# ones are forgotten once the history holds them.
KEEP_HOURS = 2


class StalePrincipal(Exception):
    """The principal's account epoch is no longer current (issue 13): nothing was
    decided; read the key again and retry."""


def usage_consume(
    *, principal: KeyPrincipal, now: datetime, epoch: str | None = None
) -> MeterDecision:
    """Decide ``principal``'s request at ``now`` against its account's quota and burst
    bucket, as one atomic step that also counts the outcome (admitted, or refused by
    the quota or the burst limit) in the key's hourly bucket; a refusal changes neither
    the quota nor the bucket. With ``epoch`` (a meter that ``checks_epochs``), only
    while it is still the account's epoch, else ``StalePrincipal`` and nothing changes
    (issue 13). Raises ``MeterUnavailable`` when Redis cannot be reached."""
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
    return decision_for(tally, window=window, bucket=bucket, now=now)


def usage_refund(*, principal: KeyPrincipal, decision: MeterDecision) -> bool:
    """Give back the unit of ``principal``'s request admitted by ``decision`` and then
    answered 5xx (issue 11.7): one meter call, on the error path only. It counts in
    the key's ``failed`` bucket instead. Returns False when nothing was given back
    (not admitted, or the meter lost the request's state since); never raises for an
    unreachable meter (the failure is logged: the answer is a 5xx already)."""
    if not decision.allowed or decision.hour is None:
        return False
    try:
        return get_meter().refund(
            account_id=principal.account_id, key_id=principal.key_id, hour=decision.hour
        )
    except MeterUnavailable as exc:
        logger.warning("meter unreachable: a failed request could not be given back: %s", exc)
        return False


def usage_flush(*, sweep: bool = False, now: datetime | None = None) -> int:
    """Copy the meter's per-key hourly buckets of the accounts it saw since the last
    flush (``sweep``: of every account it holds) to the history, as absolute values,
    and move ``ApiKey.last_used_at`` forward; then let the meter forget the copied
    buckets of closed hours. Returns the number of (key, hour) rows written.

    Idempotent and safe from many workers at once: a row is replaced only by a copy
    that is not older in any of its counts (each only ever grows), so a late or
    repeated copy changes nothing. On failure the accounts are kept for the next flush
    and the error is raised."""
    meter = get_meter()
    usages = meter.snapshot(sweep=sweep)
    if not usages:
        return 0
    try:
        written = _write(usages)
    except Exception:
        meter.remember(u.account_id for u in usages)
        raise
    meter.prune(usages, before_hour=hour_of(now or timezone.now()) - KEEP_HOURS + 1)
    _announce({u.account_id for u in usages})
    return written


def _announce(account_ids: set[int]) -> None:
    """Tell receivers (quota alerts) which accounts were written; never raises, so a
    failing receiver cannot make the caller put back counts already written."""
    for receiver, result in usage_flushed.send_robust(sender=usage_flush, account_ids=account_ids):
        if isinstance(result, Exception):
            logger.error("usage_flushed receiver %s failed: %r", receiver, result)


def _write(usages: Sequence[AccountUsage]) -> int:
    key_ids = {kid for u in usages for kid, _ in u.buckets} | {
        kid for u in usages for kid in u.last_used
    }
    # Keys deleted (with their account) since the request was counted have no history.
    alive = set(ApiKey.objects.filter(pk__in=key_ids).values_list("pk", flat=True))
    rows = [
        (kid, u.account_id, hour_start(hour), c.charged, c.failed, c.quota, c.burst)
        for u in usages
        for (kid, hour), c in sorted(u.buckets.items())
        if kid in alive
    ]
    with transaction.atomic():
        for start in range(0, len(rows), UPSERT_BATCH):
            _upsert(rows[start : start + UPSERT_BATCH])
        for u in usages:
            for kid, at_us in u.last_used.items():
                if kid in alive:
                    at = EPOCH + at_us * US
                    ApiKey.objects.filter(pk=kid).filter(
                        Q(last_used_at__isnull=True) | Q(last_used_at__lt=at)
                    ).update(last_used_at=at)
    return len(rows)


def _upsert(rows: list[tuple[int, int, datetime, int, int, int, int]]) -> None:
    """``INSERT ... ON CONFLICT (key, hour) DO UPDATE SET <every count> = new ... WHERE
    the new copy is not older``: one statement, atomic per row, on PostgreSQL and SQLite
    alike. The meter's admitted (``count + failed``), ``failed``, ``quota_refused`` and
    ``burst_refused`` only ever grow, so of two copies of a bucket the newer is at least
    as large in all four: an older copy arriving late is skipped."""
    if not rows:
        return
    qn = connection.ops.quote_name
    table = qn(KeyUsageHour._meta.db_table)
    key, account, hour, count, failed, quota, burst = (
        qn(c)
        for c in (
            "key_id",
            "account_id",
            "hour",
            "count",
            "failed",
            "quota_refused",
            "burst_refused",
        )
    )
    values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(rows))
    new, old = "excluded.", f"{table}."
    sql = (
        f"INSERT INTO {table} ({key}, {account}, {hour}, {count}, {failed}, {quota}, {burst}) "  # noqa: S608
        f"VALUES {values} ON CONFLICT ({key}, {hour}) DO UPDATE SET "
        f"{count} = {new}{count}, {failed} = {new}{failed}, "
        f"{quota} = {new}{quota}, {burst} = {new}{burst} "
        f"WHERE {new}{count} + {new}{failed} >= {old}{count} + {old}{failed} "
        f"AND {new}{failed} >= {old}{failed} AND {new}{quota} >= {old}{quota} "
        f"AND {new}{burst} >= {old}{burst}"
    )
    params: list[object] = []
    for key_id, account_id, moment, *counts in rows:
        params += [key_id, account_id, connection.ops.adapt_datetimefield_value(moment), *counts]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
