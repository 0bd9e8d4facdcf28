"""Pools of forked worker processes that ``terminate()`` always ends.

A forked child inherits its parent's signal handlers. The service's processes set
Python handlers for SIGTERM and SIGHUP (metering/recorder.py flushes what was counted,
then ends the process), so a pool's children ran that Python handler when
``Pool.terminate()`` sent them SIGTERM. Once a child stayed alive after it, and
``terminate()`` joined that child forever: a failing test load hung ``make test`` for
ten minutes. The child had the handler installed and no signal pending; a SIGTERM sent
by hand then ended it. Most likely the signal reached the child while it was still
starting, where CPython drops the signals a child caught before its interpreter was
ready after the fork. The catalogue's loads and renders fail within milliseconds of
their pool's start when their input is bad.

``forked_pool`` forks its children with SIGTERM and SIGHUP at their default action, so
the kernel ends them at once, whatever state their interpreter is in. Its users
(catalogue.importers.load's encoders, catalogue.delivery.rendering's parallel render)
meter nothing and hold nothing to flush. The parent keeps its own handlers.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from multiprocessing.pool import Pool
from typing import Any

# The signals a pool's ``terminate()`` sends (SIGTERM) or a supervisor may (SIGHUP).
STOPS = (signal.SIGTERM, signal.SIGHUP)


def forked_pool(processes: int) -> Pool:
    """A ``fork`` pool of ``processes`` children whose ``STOPS`` take their default
    action (see the module). The handlers are swapped around the forks only from the main
    thread (elsewhere they cannot be set) and only when Python set them (a handler set
    from C cannot be put back)."""
    swapped: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in STOPS:
            handler = signal.getsignal(signum)
            if handler is not None and handler is not signal.SIG_DFL:
                swapped[signum] = signal.signal(signum, signal.SIG_DFL)
    try:
        return multiprocessing.get_context("fork").Pool(processes)
    finally:
        for signum, handler in swapped.items():
            signal.signal(signum, handler)
