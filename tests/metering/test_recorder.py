"""The usage flusher's log while flushes fail: one traceback per outage, then a line at
most every ``REPEAT_LOG_SECONDS``, and the recovery; where a stop signal is given the
last flush (metering/recorder.py; the stops themselves: test_stop.py)."""

from __future__ import annotations

import logging
import signal
import threading

import pytest

from metering import recorder
from metering.recorder import REPEAT_LOG_SECONDS, Flusher


class Outage:
    """A flush that fails while ``down``, and a clock the test moves."""

    def __init__(self) -> None:
        self.down = True
        self.now = 1000.0

    def flush(self, *, sweep: bool = False) -> int:
        if self.down:
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        return 0


@pytest.fixture
def outage() -> Outage:
    return Outage()


def test_an_outage_logs_one_traceback_then_reminders_then_its_end(outage, caplog):
    flusher = Flusher(outage.flush, clock=lambda: outage.now)
    with caplog.at_level(logging.INFO, logger="foodservice.metering"):
        for _ in range(30):  # rounds of 1 s: within one reminder period
            flusher.flush_quietly()
            outage.now += 1
        outage.now += REPEAT_LOG_SECONDS
        flusher.flush_quietly()
        outage.down = False
        flusher.flush_quietly()
        flusher.flush_quietly()
    records = [(r.levelname, r.getMessage(), r.exc_info is not None) for r in caplog.records]
    assert records == [
        ("ERROR", "usage history flush failed; will retry", True),
        (
            "WARNING",
            "usage history flush still failing (31 rounds): "
            "Error 111 connecting to 127.0.0.1:6379. Connection refused.",
            False,
        ),
        ("INFO", "usage history flush recovered after 31 failed round(s)", False),
    ]


def test_a_second_outage_logs_its_own_traceback(outage, caplog):
    flusher = Flusher(outage.flush, clock=lambda: outage.now)
    with caplog.at_level(logging.ERROR, logger="foodservice.metering"):
        flusher.flush_quietly()
        outage.down = False
        flusher.flush_quietly()
        outage.down = True
        flusher.flush_quietly()
    assert [r.levelname for r in caplog.records] == ["ERROR", "ERROR"]


@pytest.fixture
def stop_handlers():
    """SIGTERM's and SIGHUP's handlers put back after the test (this process's own)."""
    saved = {signum: signal.getsignal(signum) for signum in recorder.STOP_SIGNALS}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def test_a_stop_signal_is_handled_only_where_its_default_still_holds(stop_handlers):
    """Issue 36.5: a signal someone ignores (``nohup``) or handles (gunicorn's workers,
    runserver's autoreloader) is left to them; one at its default gets the flush."""

    def theirs(signum, frame):
        pass

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    assert recorder.flush_on_stop() == [signal.SIGHUP]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGHUP) is recorder._flush_then_stop
    signal.signal(signal.SIGTERM, theirs)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    assert recorder.flush_on_stop() == [signal.SIGHUP]
    assert signal.getsignal(signal.SIGTERM) is theirs


def test_a_stop_signal_is_not_handled_from_another_thread(stop_handlers):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    found = []
    other = threading.Thread(target=lambda: found.append(recorder.flush_on_stop()))
    other.start()
    other.join()
    assert found == [[]]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
