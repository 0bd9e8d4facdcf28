"""The quota-alert check run by the usage flusher, off the request path (issue 16.2).

Each flush of the usage history (``metering.signals.usage_flushed``, sent from the
worker's own flusher thread) adds the accounts it wrote to a per-process set; at most
every ``settings.QUOTA_ALERT_CHECK_SECONDS`` those accounts are checked. No extra
process is needed; ``manage.py send_quota_alerts`` runs the same check by hand or from
cron (and is the only one when the setting is 0).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.dispatch import receiver

from metering.signals import usage_flushed

logger = logging.getLogger("foodservice.alerts")


class Batcher:
    """Collects account ids and lets them out at most once per ``interval`` seconds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: set[int] = set()
        self._last = float("-inf")

    def add(self, account_ids: Iterable[int], *, interval: float, now: float) -> set[int]:
        """Add ``account_ids``; returns the ids to check now (empty inside the interval)."""
        with self._lock:
            self._pending.update(account_ids)
            if not self._pending or now - self._last < interval:
                return set()
            self._last = now
            due, self._pending = self._pending, set()
            return due

    def reset(self) -> None:
        with self._lock:
            self._pending, self._last = set(), float("-inf")


batcher = Batcher()


@receiver(usage_flushed, dispatch_uid="quota-alerts-after-flush")
def check_after_flush(sender: Any, account_ids: Iterable[int], **kwargs: Any) -> None:
    interval = settings.QUOTA_ALERT_CHECK_SECONDS
    if interval <= 0:
        return
    due = batcher.add(account_ids, interval=interval, now=time.monotonic())
    if not due:
        return
    from metering.alerts.services import quota_alerts_check

    try:
        quota_alerts_check(account_ids=due)
    except Exception:  # never disturb the flusher; the next check or the command retries
        logger.exception("quota alert check failed")
