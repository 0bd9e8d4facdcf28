"""This process's not-yet-written usage, and the thread that writes it (spec 2.3).

Each admitted request adds one to its key's current hour in ``buffer`` (a dict update
under a lock: the request path never touches the database for history). A daemon
thread of the same web worker (no extra process) calls ``metering.services.usage_flush``
every ``settings.METER_FLUSH_SECONDS``; a graceful exit flushes once more. A crash
(SIGKILL, power loss) loses at most the requests admitted since the last flush, i.e.
about ``METER_FLUSH_SECONDS`` of that worker's traffic; a failed write is put back and
retried on the next flush.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

logger = logging.getLogger("foodservice.metering")

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


class Flusher:
    """Calls ``flush`` every ``interval`` seconds from a daemon thread of this process.

    Started lazily by the first admitted request, so a pre-forking server starts one per
    worker, after the fork. The thread never raises: a failed flush is logged and its
    counts wait for the next one."""

    def __init__(self, flush: Callable[[], object]) -> None:
        self._flush = flush
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def ensure_running(self, interval: float) -> None:
        if interval <= 0 or (self._thread is not None and self._thread.is_alive()):
            return
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stop = threading.Event()
            self._thread = threading.Thread(
                target=self._run, args=(interval, self._stop), name="usage-flusher", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._thread = None

    def _run(self, interval: float, stop: threading.Event) -> None:
        while not stop.wait(interval):
            self.flush_quietly()

    def flush_quietly(self) -> None:
        try:
            self._flush()
        except Exception:  # the thread must survive a database outage
            logger.exception("usage history flush failed; will retry")

    def reset(self) -> None:
        """After a fork: the parent's thread does not exist in the child."""
        self._thread = None
        self._lock = threading.Lock()


buffer = UsageBuffer()


def _flush() -> object:
    from django.db import close_old_connections

    from metering.services import usage_flush

    # The flusher thread is outside Django's request cycle, which is what drops a broken
    # or expired connection: without this, a database restart leaves the thread on a
    # dead connection and no history is written until the worker exits (issue 7.6).
    close_old_connections()
    return usage_flush()


flusher = Flusher(_flush)


def _after_fork_in_child() -> None:
    buffer.reset()
    flusher.reset()


os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(flusher.flush_quietly)
