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
    usage is one indexed range read. Written by ``metering.history.usage_flush`` as
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


class KeyRequestOutcome(models.Model):
    """Requests made with one key in one UTC hour, by endpoint and answer (issue 40.3).

    ``endpoint`` is the method and route (``GET /v1/foods/{public_id}``, never the path
    as sent, so the rows stay few); ``status`` the HTTP status answered; ``kind`` the
    problem's kind (``not-found``, ``quota-exceeded``, ...; empty for a success);
    ``counted`` whether the request counted against the quota (admitted by the meter and
    not given back), so the counted rows of an hour add up to ``KeyUsageHour.count``.
    Refused requests whose key is known (a disallowed address; a revoked or expired
    key) are rows of that key with status 401. Written by
    ``metering.outcomes.outcomes_flush`` by adding each worker's counts."""

    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="+")
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    hour = models.DateTimeField(help_text="Start of the UTC hour.")
    endpoint = models.CharField(max_length=80)
    status = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=40, blank=True)
    counted = models.BooleanField()
    requests = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["key", "hour", "endpoint", "status", "kind", "counted"],
                name="metering_outcome_key_hour",
            ),
        ]
        indexes = [models.Index(fields=["account", "hour"], name="metering_outcome_acct_hour")]
        ordering = ["key", "hour", "endpoint", "status"]
        verbose_name = "hourly key outcome"
        verbose_name_plural = "hourly key outcomes"

    def __str__(self) -> str:
        return f"key {self.key_id} @ {self.hour:%Y-%m-%d %H:00}Z {self.endpoint} {self.status}"


class KeyRequest(models.Model):
    """One recent request made with a key (issue 40.3): the recent-requests log, kept
    bounded (the newest ``metering.outcomes.KEEP_REQUESTS`` per key, none older than
    ``KEEP_REQUEST_HOURS``). The path is the path as sent with anything shaped like a
    key redacted, never the query string, a header or a body (the same rule as the
    request log line)."""

    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="+")
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField()
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=200)
    endpoint = models.CharField(max_length=80)
    status = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=40, blank=True)
    latency_ms = models.FloatField()
    address = models.CharField(max_length=64)
    request_id = models.CharField(max_length=128)

    class Meta:
        indexes = [
            models.Index(fields=["key", "-at"], name="metering_request_key_at"),
            models.Index(fields=["account", "-at"], name="metering_request_account_at"),
        ]
        ordering = ["-at"]
        verbose_name = "recent request"

    def __str__(self) -> str:
        return f"key {self.key_id} {self.at:%Y-%m-%d %H:%M:%S}Z {self.method} {self.path}"
