"""Durable usage history (spec 2.3): requests per key per hour."""

from __future__ import annotations

from django.db import models

from accounts.models import Account
from keys.models import ApiKey


class KeyUsageHour(models.Model):
    """Admitted metered requests of one key in one UTC hour (refused ones never count).

    Points at the key's id, which rotation keeps, so the history survives rotation;
    ``account`` repeats the key's account (a key never changes account) so an account's
    usage is one indexed range read. Written by ``metering.history.usage_flush``, a few
    seconds behind the live counts; the source the live counts are rebuilt from.
    """

    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="usage_hours")
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    hour = models.DateTimeField(help_text="Start of the UTC hour.")
    count = models.PositiveBigIntegerField(default=0)

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
