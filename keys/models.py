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
