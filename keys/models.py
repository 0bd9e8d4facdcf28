"""API keys (spec 2.3, 3.1). The secret itself is never stored: only its HMAC."""

from __future__ import annotations

from datetime import datetime

from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Account


class KeyState(models.TextChoices):
    ACTIVE = "active", "Active"
    REVOKED = "revoked", "Revoked"
    EXPIRED = "expired", "Expired"


class ApiKeyQuerySet(models.QuerySet["ApiKey"]):
    def active(self, now: datetime) -> ApiKeyQuerySet:
        """Keys that authenticate at ``now``: not revoked, not expired."""
        return self.filter(revoked_at__isnull=True).filter(
            Q(expires_at__isnull=True) | Q(expires_at__gt=now)
        )


class ApiKey(models.Model):
    """One key of an account. Rotation replaces ``secret_hash`` in place, so the id,
    label and usage history (rows pointing at this id) survive it."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="keys")
    label = models.CharField(max_length=100)
    secret_hash = models.CharField(max_length=64, unique=True, editable=False)
    hint = models.CharField(max_length=4, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    rotated_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Issue 29.3: the addresses (IPs or CIDR ranges, normalised strings) requests with
    # this key may come from; empty means any. See keys.policies.address_allowed.
    allowed_addresses = models.JSONField(default=list, blank=True, editable=False)

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.label} (…{self.hint})"

    def state_at(self, now: datetime) -> KeyState:
        if self.revoked_at is not None:
            return KeyState.REVOKED
        if self.expires_at is not None and self.expires_at <= now:
            return KeyState.EXPIRED
        return KeyState.ACTIVE

    @property
    def state(self) -> KeyState:
        return self.state_at(timezone.now())


class KeyExpiryNotice(models.Model):
    """What was done about ``key`` expiring at ``expires_at`` (issue 29.2): ``stage`` 7
    and 1 are the e-mails sent that many days before, 0 the audit entry written once it
    expired. Written before the e-mail goes out (removed again if sending fails); the
    unique constraint makes workers checking at once act once. A new expiry date (a key
    is never given one after creation today) would start afresh."""

    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="+")
    stage = models.PositiveSmallIntegerField(help_text="Days before expiry; 0: expired.")
    expires_at = models.DateTimeField()
    at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["key", "stage", "expires_at"], name="keys_one_expiry_notice"
            )
        ]

    def __str__(self) -> str:
        return f"key {self.key_id}: stage {self.stage} of {self.expires_at:%Y-%m-%d %H:%M}Z"
