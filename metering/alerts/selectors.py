"""Reads of quota alerts."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db.models import Max

from accounts.models import Account
from metering.alerts.models import AlertPreference, QuotaAlert
from metering.models import KeyUsageHour

# The longest window (a 31-day billing period) plus a day: an account without usage
# in this span cannot have reached a threshold.
RECENT_USAGE = timedelta(days=32)


def alerts_enabled(*, account: Account) -> bool:
    """Whether ``account``'s owner wants quota alerts (yes unless switched off)."""
    choice = AlertPreference.objects.filter(account=account).values_list("quota_alerts", flat=True)
    return choice.first() is not False


def expiry_alerts_enabled(*, account: Account) -> bool:
    """Whether ``account``'s owner wants key expiry reminders (yes unless switched off)."""
    choice = AlertPreference.objects.filter(account=account).values_list("expiry_alerts", flat=True)
    return choice.first() is not False


def alert_candidates(*, now: datetime, account_ids: Iterable[int] | None = None) -> list[Account]:
    """The accounts to check: ``account_ids`` (all with usage in the last 32 days when
    None), minus those whose owner switched alerts off or is deactivated."""
    accounts = (
        Account.objects.select_related("owner")
        .filter(owner__is_active=True)
        .exclude(alert_preference__quota_alerts=False)
    )
    if account_ids is None:
        recent = KeyUsageHour.objects.filter(hour__gte=now - RECENT_USAGE)
        return list(accounts.filter(pk__in=recent.values("account_id")).order_by("pk"))
    return list(accounts.filter(pk__in=list(account_ids)).order_by("pk"))


def last_alerts(*, account: Account) -> dict[int, datetime]:
    """The latest ``window_start`` alerted per threshold for ``account``."""
    rows = (
        QuotaAlert.objects.filter(account=account)
        .values("threshold")
        .annotate(last=Max("window_start"))
    )
    return {row["threshold"]: row["last"] for row in rows}
