"""The thread that copies the meter's per-key hourly buckets to the history (spec 2.3,
issue 19).

The buckets are counted by the meter itself, in the atomic step that decides each
request (metering/backends.py, lua/consume.lua), so nothing of the history lives only in
a web worker's memory (except with the in-process meter, whose whole state does). A
daemon thread of each web worker (no extra process) calls
``metering.history.usage_flush`` every ``settings.METER_FLUSH_SECONDS`` for the accounts
that worker saw, and, on its first round and every ``SWEEP_SECONDS``, for every account
the meter holds (one worker at a time, by a short Redis lock), so the counts of a worker
killed before its flush are copied by the next sweep or by the next worker to see the
account. A graceful exit flushes once more. The copy is of absolute values: running it
twice, late or from two workers at once changes nothing.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections.abc import Callable

from django.db import close_old_connections

from metering.history import usage_flush

logger = logging.getLogger("foodservice.metering")

# How often one worker copies every account's buckets, not only those it saw.
SWEEP_SECONDS = 60.0
# While flushes keep failing, a one-line reminder at most this often.
REPEAT_LOG_SECONDS = 60.0


class Flusher:
    """Calls ``flush(sweep=...)`` every ``interval`` seconds from a daemon thread of this
    process, with ``sweep=True`` on the first round and every ``SWEEP_SECONDS``.

    Started lazily by the first metered request, so a pre-forking server starts one per
    worker, after the fork. The thread never raises: a failed flush is logged and its
    accounts wait for the next one."""

    def __init__(
        self, flush: Callable[..., object], *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._flush = flush
        self._clock = clock
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._failures = 0  # rounds failed in a row
        self._logged_at = 0.0

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
        next_sweep = 0.0
        while not stop.wait(interval):
            sweep = time.monotonic() >= next_sweep
            if sweep:
                next_sweep = time.monotonic() + SWEEP_SECONDS
            self.flush_quietly(sweep=sweep)

    def flush_quietly(self, *, sweep: bool = False) -> None:
        """One flush that never raises. An outage is logged once with its traceback
        (ERROR), then at most every ``REPEAT_LOG_SECONDS`` in one line (WARNING) while
        it lasts, and its end once (INFO): not a traceback every round of every worker
        while Redis or the database is down."""
        try:
            self._flush(sweep=sweep)
        except Exception as exc:  # the thread must survive a database or Redis outage
            self._failed(exc)
            return
        if self._failures:
            logger.info("usage history flush recovered after %d failed round(s)", self._failures)
            self._failures = 0

    def _failed(self, exc: Exception) -> None:
        self._failures += 1
        now = self._clock()
        if self._failures == 1:
            self._logged_at = now
            logger.exception("usage history flush failed; will retry")
        elif now - self._logged_at >= REPEAT_LOG_SECONDS:
            self._logged_at = now
            logger.warning("usage history flush still failing (%d rounds): %s", self._failures, exc)

    def reset(self) -> None:
        """After a fork: the parent's thread does not exist in the child."""
        self._thread = None
        self._lock = threading.Lock()


def _flush(*, sweep: bool = False) -> object:
    # The flusher thread is outside Django's request cycle, which is what drops a broken
    # or expired connection: without this, a database restart leaves the thread on a
    # dead connection and no history is written until the worker exits (issue 7.6).
    close_old_connections()
    written = usage_flush(sweep=sweep)
    if sweep:  # about once a minute per worker: key expiry reminders (issue 29.2)
        _key_expiry_check()
    return written


def _key_expiry_check() -> None:
    from keys.expiry import key_expiry_check

    try:
        key_expiry_check()
    except Exception:  # never disturb the flusher; the next sweep or the command retries
        logger.exception("key expiry check failed")


flusher = Flusher(_flush)


def _after_fork_in_child() -> None:
    flusher.reset()


os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(flusher.flush_quietly)
