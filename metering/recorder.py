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
account. Every ordinary stop flushes once more (issue 36.5): a normal exit, SIGINT
(KeyboardInterrupt) and ``sys.exit`` through ``atexit``; SIGTERM and SIGHUP, whose
default action ends the process without running ``atexit``, through ``flush_on_stop``
(installed by ``MeteringConfig.ready``). The copy is of absolute values: running it
twice, late or from two workers at once changes nothing.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
import time
from collections.abc import Callable

from django.db import close_old_connections

from metering.history import usage_flush
from metering.outcomes import outcomes_flush

logger = logging.getLogger("foodservice.metering")

# How often one worker copies every account's buckets, not only those it saw.
SWEEP_SECONDS = 60.0
# While flushes keep failing, a one-line reminder at most this often.
REPEAT_LOG_SECONDS = 60.0
# Signals whose default action ends the process without ``atexit`` (SIGINT's default
# handler raises KeyboardInterrupt, which runs it), and how long a stop waits for the
# last flush (a few milliseconds normally; bounded for a database that does not answer).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
STOP_FLUSH_SECONDS = 5.0


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
    try:
        written = usage_flush(sweep=sweep)
    finally:  # the usage log's requests (issue 40.3): database only, also when Redis is down
        outcomes_flush()
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


def flush_on_stop() -> list[signal.Signals]:
    """Make SIGTERM and SIGHUP flush what this process counted before it ends, as their
    default action would end it; returns the signals handled.

    Only from the main thread (the only one that may set a handler), and only for a
    signal whose handler is still the default: a process that ignores one (``nohup``)
    keeps ignoring it, and a server with handlers of its own keeps them. gunicorn's
    workers set theirs before loading the app (SIGTERM ends a worker gracefully, SIGINT
    and SIGQUIT at once, each through ``sys.exit``, so ``atexit`` flushes), and
    runserver's autoreloader sets SIGTERM to ``sys.exit`` after it; so this serves
    ``runserver --noreload`` (``make run``), the management commands, and a worker's
    SIGHUP, which gunicorn leaves at its default."""
    if threading.current_thread() is not threading.main_thread():
        return []
    handled = [s for s in STOP_SIGNALS if signal.getsignal(s) is signal.SIG_DFL]
    for signum in handled:
        signal.signal(signum, _flush_then_stop)
    return handled


def _flush_then_stop(signum: int, frame: object) -> None:
    """Flush from a thread of its own, waiting at most ``STOP_FLUSH_SECONDS`` (the main
    thread, interrupted here, may hold the in-process meter's lock, which a flush on it
    would wait for forever), then end the process by the same signal with its default
    action, so a supervisor (systemd, Docker, Kubernetes) sees the usual status."""
    last = threading.Thread(target=flusher.flush_quietly, name="usage-flush-on-stop", daemon=True)
    last.start()
    last.join(STOP_FLUSH_SECONDS)
    if last.is_alive():
        logger.warning("usage history flush on stop unfinished after %.0f s", STOP_FLUSH_SECONDS)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(flusher.flush_quietly)
