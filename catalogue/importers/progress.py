"""Progress of a load, phase by phase (read, group, index, render: issue 28, point 4).

On a terminal each phase draws a bar with its rate and time left, redrawn in place and
ended by its summary; piped (or with ``json=True``), each phase prints one summary line
when it ends (JSON: one object a line), so logs hold what a person needs and no
carriage returns. A ``Progress(None)`` prints nothing.
"""

from __future__ import annotations

import json as jsonlib
import time
from collections.abc import Callable
from typing import TextIO


def render(*, done: int, total: int, rows: int, elapsed: float, width: int = 30) -> str:
    """One line: bar, percent, rows so far, rows per second and the time left. Pure."""
    fraction = min(1.0, done / total) if total else 1.0
    filled = int(fraction * width)
    rate = rows / elapsed if elapsed > 0 else 0.0
    eta = elapsed * (1 - fraction) / fraction if fraction > 0 else 0.0
    bar = "#" * filled + "." * (width - filled)
    return f"[{bar}] {fraction:4.0%} {rows:,} rows {rate:,.0f} rows/s ETA {eta:,.0f}s"


def summary(*, phase: str, rows: int, seconds: float, note: str = "") -> str:
    """The line a finished phase prints when piped. Pure."""
    rate = rows / seconds if seconds > 0 else 0.0
    tail = f" ({note})" if note else ""
    return f"{phase}: {rows:,} rows in {seconds:.1f}s, {rate:,.0f} rows/s{tail}"


class Progress:
    """Reports the phases of a load on ``stream`` (None: nowhere): a bar per phase
    redrawn at most ``per_second`` times a second when ``stream`` is a terminal and
    ``json`` is off, else one line per phase. ``clock`` is injected for tests."""

    def __init__(
        self,
        stream: TextIO | None,
        *,
        json: bool = False,
        per_second: float = 4.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.json = json
        self.tty = bool(stream is not None and not json and stream.isatty())
        self.interval = 1.0 / per_second
        self.clock = clock
        self.phase = ""
        self.total: int | None = None
        self.started = clock()
        self._last = float("-inf")
        self._rows = 0
        self.phases: list[dict[str, object]] = []  # the finished phases' summaries

    def start(self, phase: str, *, total: int | None = None) -> None:
        """A phase begins; ``total`` is what ``update``'s ``done`` counts up to (bytes
        read, foods to render), None when unknown."""
        self.phase, self.total, self.started, self._last = phase, total, self.clock(), -1e18

    def update(self, *, done: int, rows: int) -> None:
        self._rows = rows
        now = self.clock()
        if not self.tty or now - self._last < self.interval or self.stream is None:
            return
        self._last = now
        line = render(done=done, total=self.total or 0, rows=rows, elapsed=now - self.started)
        self.stream.write(f"\r{self.phase:<6} {line}")
        self.stream.flush()

    def finish(self, *, rows: int, note: str = "") -> None:
        """The phase ended having handled ``rows``: its summary is printed and kept."""
        seconds = self.clock() - self.started
        record = {"phase": self.phase, "rows": rows, "seconds": round(seconds, 2)}
        if note:
            record["note"] = note
        self.phases.append(record)
        if self.stream is None:
            return
        if self.json:
            self.stream.write(jsonlib.dumps(record) + "\n")
        else:
            line = summary(phase=self.phase, rows=rows, seconds=seconds, note=note)
            self.stream.write(("\r\x1b[K" if self.tty else "") + line + "\n")
        self.stream.flush()
