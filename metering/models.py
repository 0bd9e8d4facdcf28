"""Durable usage history (spec 2.3): requests per key per hour."""

from __future__ import annotations

from django.db import models

from accounts.models import Account
from keys.models import ApiKey


class KeyUsageHour(models.Model):
    """Metered requests of one key in one UTC hour, by outcome (issue 16.1).

    ``count``: admitted and counted against the quota (the only column the quota
    counts); ``failed``: admitted, then answered 5xx and given back (issue 11.7);
    ``quota_refused``/``burst_refused``: refused with that 429 (never counted).
    Points at the key's id, which rotation keeps, so the history survives rotation;
    ``account`` repeats the key's account (a key never changes account) so an account's
    usage is one indexed range read. Written by ``metering.services.usage_flush`` as
    absolute values copied from the meter (issue 19), a few seconds behind the live
    counts; the source the live counts are rebuilt from.
    """

    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="usage_hours")
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    hour = models.DateTimeField(help_text="Start of the UTC hour.")
    count = models.PositiveBigIntegerField(default=0, help_text="Admitted and counted.")
    failed = models.PositiveBigIntegerField(default=0, help_text="Answered 5xx, not counted.")
    quota_refused = models.PositiveBigIntegerField(default=0, help_text="Quota 429s.")
    burst_refused = models.PositiveBigIntegerField(default=0, help_text="Burst 429s.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["key", "hour"], name="metering_usage_key_hour"),
        ]
        indexes = [models.Index(fields=["account", "hour"], name="metering_usage_account_hour")]
        ordering = ["key", "hour"]
        verbose_name = "hourly key usage"
        verbose_name_plural = "hourly key usage"

    def __str__(self) -> str:
        return f"key {self.key_id} @ {self.hour:%Y-%m-%d %H:00}Z: {self.count}"
