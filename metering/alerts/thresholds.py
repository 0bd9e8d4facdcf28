"""Which quota alerts are due (issue 16.2). Pure: no I/O, the window is passed in.

An alert fires when usage reaches a threshold (80 % and 100 % of the quota) and at most
once per threshold per window:

- **month** (billing period): once per period; the next period re-arms it.
- **day** (rolling 24 hours in hourly steps): the window moves every hour, so "once per
  window" means once per 24 hours: an alert sent in hour H covers hours H to H+23, the
  span in which every request counted when it fired is still in the window. Usage that
  hovers at the line (hours ageing out, new requests coming in) therefore sends nothing
  more until H+24; still above the line then, the owner hears again, once.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from core.calendar import DAY_HOURS, hour_of, hour_start
from metering.windows import Window

THRESHOLDS = (80, 100)


def reached(*, used: int, quota: int) -> tuple[int, ...]:
    """The thresholds (percent) that ``used`` of ``quota`` has reached; none at quota 0."""
    if quota <= 0:
        return ()
    return tuple(t for t in THRESHOLDS if used * 100 >= t * quota)


def alert_window_start(window: Window) -> datetime:
    """What an alert sent now records as its window (see ``QuotaAlert.window_start``)."""
    return hour_start(window.hour if window.start_hour is None else window.start_hour)


def covered(window: Window, last_start: datetime | None) -> bool:
    """Whether an alert recorded with ``last_start`` still covers ``window``."""
    if last_start is None:
        return False
    if window.start_hour is None:
        return window.hour - hour_of(last_start) < DAY_HOURS
    return hour_of(last_start) == window.start_hour


def due(*, used: int, quota: int, window: Window, last: Mapping[int, datetime]) -> tuple[int, ...]:
    """The thresholds to alert now: reached and not covered by the latest alert of the
    same threshold (``last``: threshold -> its latest ``window_start``)."""
    return tuple(t for t in reached(used=used, quota=quota) if not covered(window, last.get(t)))
