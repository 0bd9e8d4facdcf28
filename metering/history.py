"""The durable usage history (spec 2.3): the meter's per-key hourly buckets copied to
``KeyUsageHour``, and the meter's seed read back from it.

The buckets are counted by the meter itself, in the atomic step that decides each
request (backends.py, lua/consume.lua; issue 19). ``usage_flush`` copies them to the
history as absolute values, from the worker's own flusher thread (recorder.py), never
from the request path, then tells receivers (``signals.usage_flushed``). ``usage_seed``
rebuilds an account's window from the history when the meter has lost it.
``metering.services`` (which counts) and ``metering.selectors`` (which reads) both use
this module; it imports neither, so metering has no import cycle.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from django.db import connection, transaction
from django.db.models import Q, Sum
from django.utils import timezone

from core.calendar import DAY_HOURS, EPOCH, US, hour_of, hour_start
from keys.models import ApiKey
from metering.backends import get_meter
from metering.meter import AccountUsage, Buckets, Seed
from metering.models import KeyUsageHour
from metering.signals import usage_flushed
from metering.windows import Window

logger = logging.getLogger("foodservice.metering")

UPSERT_BATCH = 500
# Buckets of the current and the previous hour stay in the meter after a flush (a
# refund may still reach a request admitted just before the top of the hour); older
# ones are forgotten once the history holds them.
KEEP_HOURS = 2

# The history's columns by outcome (issue 16.1), in the order the series carry them.
OUTCOME_COLUMNS = ("count", "quota_refused", "burst_refused", "failed")
# Their names in GET /v1/usage/history and the dashboard's CSV, in the same order.
OUTCOME_NAMES = ("requests", "quota_429", "burst_429", "failed_5xx")


def usage_seed(*, account_id: int, window: Window) -> Seed:
    """The account's usage rebuilt from the history, to (re)initialise the meter: the
    last 24 hourly totals, the total since the billing period's first hour, and the
    current hour's per-key buckets. What the meter counted and had not copied yet (at
    most the last ``METER_FLUSH_SECONDS`` before it lost its state) is not there."""
    first = window.hour - DAY_HOURS + 1
    if window.start_hour is not None:
        first = min(first, window.start_hour)
    totals: Counter[int] = Counter()
    rows = (
        KeyUsageHour.objects.filter(account_id=account_id, hour__gte=hour_start(first))
        .values("hour")
        .annotate(n=Sum("count"))
    )
    for row in rows:
        totals[hour_of(row["hour"])] += row["n"]
    hours = {h: n for h, n in totals.items() if window.hour - DAY_HOURS < h <= window.hour}
    period = 0
    if window.start_hour is not None:
        period = sum(n for h, n in totals.items() if window.start_hour <= h <= window.hour)
    current = KeyUsageHour.objects.filter(
        account_id=account_id, hour=hour_start(window.hour)
    ).values_list("key_id", *OUTCOME_COLUMNS)
    buckets = {
        (key_id, window.hour): Buckets(count + failed, failed, quota, burst)
        for key_id, count, quota, burst, failed in current
    }
    return Seed(hours=hours, period_count=period, buckets=buckets)


def usage_flush(*, sweep: bool = False, now: datetime | None = None) -> int:
    """Copy the meter's per-key hourly buckets of the accounts it saw since the last
    flush (``sweep``: of every account it holds) to the history, as absolute values,
    and move ``ApiKey.last_used_at`` forward; then let the meter forget the copied
    buckets of closed hours and announce the written accounts (``usage_flushed``).
    Returns the number of (key, hour) rows written.

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
