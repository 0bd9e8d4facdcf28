"""A progress bar with rate and ETA for long loads, drawn only on a terminal."""

from __future__ import annotations

import time
from typing import TextIO


def render(*, done: int, total: int, rows: int, elapsed: float, width: int = 30) -> str:
    """One line: bar, percent, rows so far, rows per second and the time left. Pure."""
    fraction = min(1.0, done / total) if total else 1.0
    filled = int(fraction * width)
    rate = rows / elapsed if elapsed > 0 else 0.0
    eta = elapsed * (1 - fraction) / fraction if fraction > 0 else 0.0
    bar = "#" * filled + "." * (width - filled)
    return f"[{bar}] {fraction:4.0%} {rows:,} rows {rate:,.0f} rows/s ETA {eta:,.0f}s"


class Progress:
    """Redraws at most ``per_second`` times a second on ``stream`` if it is a terminal."""

    def __init__(self, stream: TextIO, *, per_second: float = 4.0) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.interval = 1.0 / per_second
        self.started = time.monotonic()
        self._last = 0.0

    def update(self, *, done: int, total: int, rows: int, final: bool = False) -> None:
        now = time.monotonic()
        if not self.enabled or (not final and now - self._last < self.interval):
            return
        self._last = now
        line = render(done=done, total=total, rows=rows, elapsed=now - self.started)
        self.stream.write("\r" + line + ("\n" if final else ""))
        self.stream.flush()
