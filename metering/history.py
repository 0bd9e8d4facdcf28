"""The durable usage history (spec 2.3): this process's not-yet-written counts, their
writing to ``KeyUsageHour``, and the meter's seed read back from it.

Each admitted request adds one to its key's current hour in ``buffer`` (a dict update
under a lock: the request path never touches the database for history).
``usage_flush`` writes the buffer to the history, amortised, from the worker's own
flusher thread (recorder.py), never from the request path. ``usage_seed`` rebuilds an
account's window from the history (and this buffer) when the meter has lost it.
``metering.services`` (which counts) and ``metering.selectors`` (which reads) both use
this module; it imports neither, so metering has no import cycle.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection, transaction
from django.db.models import Q, Sum

from keys.models import ApiKey
from metering.backends import Seed
from metering.models import KeyUsageHour
from metering.windows import DAY_HOURS, Window, hour_of, hour_start

UPSERT_BATCH = 500

# (key id, account id, hour number)
Slot = tuple[int, int, int]


@dataclass(slots=True)
class Pending:
    """Counts not yet in the history, and each key's latest use."""

    counts: Counter[Slot] = field(default_factory=Counter)
    last_used: dict[int, datetime] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.counts) or bool(self.last_used)

    def merge(self, other: Pending) -> None:
        self.counts.update(other.counts)
        for key_id, at in other.last_used.items():
            if key_id not in self.last_used or self.last_used[key_id] < at:
                self.last_used[key_id] = at


class UsageBuffer:
    """Thread-safe per-process buffer of admitted requests."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending = Pending()

    def add(self, *, key_id: int, account_id: int, hour: int, at: datetime) -> None:
        with self._lock:
            self._pending.counts[(key_id, account_id, hour)] += 1
            last = self._pending.last_used.get(key_id)
            if last is None or last < at:
                self._pending.last_used[key_id] = at

    def drain(self) -> Pending:
        """Everything pending, leaving the buffer empty."""
        with self._lock:
            pending, self._pending = self._pending, Pending()
        return pending

    def restore(self, pending: Pending) -> None:
        """Put back what a failed write drained."""
        with self._lock:
            self._pending.merge(pending)

    def account_hours(self, account_id: int) -> Counter[int]:
        """Pending counts of one account by hour number."""
        with self._lock:
            out: Counter[int] = Counter()
            for (_, acc, hour), n in self._pending.counts.items():
                if acc == account_id:
                    out[hour] += n
            return out

    def reset(self) -> None:
        """Drop everything (tests; a forked child, whose parent still owns the counts)."""
        self._lock = threading.Lock()
        self._pending = Pending()


buffer = UsageBuffer()


def usage_seed(*, account_id: int, window: Window) -> Seed:
    """The account's usage rebuilt from the history, to (re)initialise the meter: the
    last 24 hourly totals and the total since the billing period's first hour. Counts
    this process has not written yet are included; other workers' unwritten counts (at
    most ``METER_FLUSH_SECONDS`` of their traffic) are not."""
    first = window.hour - DAY_HOURS + 1
    if window.start_hour is not None:
        first = min(first, window.start_hour)
    totals = Counter(buffer.account_hours(account_id))
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
    return Seed(hours=hours, period_count=period)


def usage_flush() -> int:
    """Write this process's pending usage to the history: add each key's hourly counts
    (one upsert per batch, safe against every other worker doing the same) and move
    ``ApiKey.last_used_at`` forward. Returns the number of (key, hour) rows written. On
    failure the counts are put back for the next flush and the error is raised."""
    pending = buffer.drain()
    if not pending:
        return 0
    try:
        return _write(pending)
    except Exception:
        buffer.restore(pending)
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


def _after_fork_in_child() -> None:
    buffer.reset()  # the parent still owns the counts


os.register_at_fork(after_in_child=_after_fork_in_child)
