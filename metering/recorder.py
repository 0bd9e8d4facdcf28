"""The thread that writes this process's usage to the history (spec 2.3).

Each admitted request adds one to its key's current hour in ``history.buffer``. A daemon
thread of the same web worker (no extra process) calls ``metering.history.usage_flush``
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
from collections.abc import Callable

from django.db import close_old_connections

from metering.history import usage_flush

logger = logging.getLogger("foodservice.metering")


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


def _flush() -> object:
    # The flusher thread is outside Django's request cycle, which is what drops a broken
    # or expired connection: without this, a database restart leaves the thread on a
    # dead connection and no history is written until the worker exits (issue 7.6).
    close_old_connections()
    return usage_flush()


flusher = Flusher(_flush)


def _after_fork_in_child() -> None:
    flusher.reset()


os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(flusher.flush_quietly)
