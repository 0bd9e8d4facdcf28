"""Writes of quota alerts: the check that sends them, and the owner's switch.

``quota_alerts_check`` runs off the request path: after the usage flusher has written
(``alerts.periodic``) and from ``manage.py send_quota_alerts``. It is idempotent: what
was sent is recorded per account, threshold and window (``alerts.thresholds``), so
running it again, from any number of workers at once, sends nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Account
from metering.alerts import emails, thresholds
from metering.alerts.models import AlertPreference, QuotaAlert
from metering.alerts.selectors import alert_candidates, last_alerts
from metering.selectors import account_usage
from metering.windows import Window, window_at

logger = logging.getLogger("foodservice.alerts")


def quota_alerts_check(
    *, account_ids: Iterable[int] | None = None, now: datetime | None = None
) -> list[QuotaAlert]:
    """E-mail every due quota alert of the accounts ``account_ids`` (every account with
    recent usage when None) at ``now``; returns the alerts sent, one per e-mail. An
    e-mail that cannot be sent is logged and retried by the next check."""
    now = now or timezone.now()
    sent = []
    for account in alert_candidates(now=now, account_ids=account_ids):
        alert = _check(account, now)
        if alert is not None:
            sent.append(alert)
    return sent


def alerts_set_enabled(*, account: Account, enabled: bool) -> AlertPreference:
    """Switch ``account``'s quota alerts on or off."""
    preference, _ = AlertPreference.objects.update_or_create(
        account=account, defaults={"quota_alerts": enabled}
    )
    return preference


def expiry_alerts_set_enabled(*, account: Account, enabled: bool) -> AlertPreference:
    """Switch ``account``'s key expiry reminders (issue 29.2) on or off."""
    preference, _ = AlertPreference.objects.update_or_create(
        account=account, defaults={"expiry_alerts": enabled}
    )
    return preference


def _check(account: Account, now: datetime) -> QuotaAlert | None:
    usage = account_usage(account=account, now=now)  # the live count, as GET /v1/usage
    used, quota = usage.request_count, usage.request_quota
    if not thresholds.reached(used=used, quota=quota):
        return None
    window = window_at(account.limits, account.billing_anchor, now)
    claimed = _claim(account, window, used, quota, now)
    if not claimed:
        return None
    alert = max(claimed, key=lambda a: a.threshold)  # 50 % -> 100 %: one e-mail, not two
    try:
        emails.send_quota_alert(account=account, alert=alert, usage=usage)
    except Exception:  # SMTP down: forget the claim, the next check retries
        QuotaAlert.objects.filter(pk__in=[a.pk for a in claimed]).delete()
        logger.exception("quota alert e-mail failed", extra={"account_id": account.pk})
        return None
    logger.info("quota alert sent", extra={"account_id": account.pk, "threshold": alert.threshold})
    return alert


def _claim(
    account: Account, window: Window, used: int, quota: int, now: datetime
) -> list[QuotaAlert]:
    """Record the due alerts before sending: under the account's row lock (checkers in
    other workers wait), and the unique constraint as the last word."""
    start = thresholds.alert_window_start(window)
    try:
        with transaction.atomic():
            Account.objects.select_for_update().filter(pk=account.pk).first()
            last = last_alerts(account=account)
            due = thresholds.due(used=used, quota=quota, window=window, last=last)
            return [
                QuotaAlert.objects.create(
                    account=account,
                    threshold=t,
                    window_start=start,
                    used=used,
                    quota=quota,
                    sent_at=now,
                )
                for t in due
            ]
    except IntegrityError:  # another checker claimed this window first
        return []
