"""Quota alerts (issue 16.2): the owner's choice, and what was sent.

``QuotaAlert`` is the memory that keeps alerts from storming: one row per account,
threshold and window, written before the e-mail goes out (and removed again if sending
fails, so the next check retries). The unique constraint makes two checkers racing on
the same window send one e-mail.
"""

from __future__ import annotations

from django.db import models

from accounts.models import Account


class AlertPreference(models.Model):
    """The owner's choice; an account without a row gets alerts (the default)."""

    account = models.OneToOneField(
        Account, on_delete=models.CASCADE, primary_key=True, related_name="alert_preference"
    )
    quota_alerts = models.BooleanField("e-mail quota alerts", default=True)
    expiry_alerts = models.BooleanField(
        "e-mail key expiry reminders", default=True, help_text="7 days and 1 day before."
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.account}: quota alerts {'on' if self.quota_alerts else 'off'}"


class QuotaAlert(models.Model):
    """An alert e-mailed to ``account`` for ``threshold`` percent of its quota.

    ``window_start``: the start of the billing period on a monthly window; on a rolling
    day, the top of the hour the alert was sent in (the alert then covers the 24 hours
    from it, see ``alerts.thresholds``)."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    threshold = models.PositiveSmallIntegerField(help_text="Percent of the quota.")
    window_start = models.DateTimeField()
    used = models.PositiveBigIntegerField()
    quota = models.PositiveBigIntegerField()
    sent_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["account", "threshold", "window_start"], name="alerts_one_per_window"
            )
        ]
        indexes = [models.Index(fields=["account", "threshold", "-window_start"])]
        ordering = ["-sent_at"]

    def __str__(self) -> str:
        return f"{self.account}: {self.threshold}% at {self.sent_at:%Y-%m-%d %H:%M}Z"
