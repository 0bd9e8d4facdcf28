"""The audit log: who changed a key, a plan or a market, and every sign-in (issue 16.3).

Append-only from the application's side: an entry is written once by
``audit.services.audit_record`` and never changed; saving an existing entry, deleting
one, or ``update()``/``delete()`` on a query set raises ``AppendOnly``. The only way
out is retention: ``AuditEntryQuerySet.prune_before`` (``manage.py prune_audit``).
Entries point at accounts and users without a database constraint, so an entry never
blocks, nor is changed by, the removal of what it names. Never a secret: the writer
redacts anything shaped like an API key.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.db import models
from django.utils import timezone

from accounts.audit.actors import ActorKind
from accounts.models import Account, User


class AppendOnly(Exception):
    """Raised on any attempt to change or delete audit entries outside retention."""


class AuditAction(models.TextChoices):
    KEY_CREATE = "key.create", "Key created"
    KEY_RENAME = "key.rename", "Key renamed"
    KEY_ROTATE = "key.rotate", "Key rotated"
    KEY_REVOKE = "key.revoke", "Key revoked"
    TIER_CHANGE = "account.tier", "Plan changed"
    MARKET_CHANGE = "account.market", "Market changed"
    SIGN_IN = "signin.success", "Signed in"
    SIGN_IN_FAILED = "signin.failure", "Sign-in failed"
    # Issue 29: the account's own life, a key's expiry and its allowed addresses.
    ACCOUNT_CREATE = "account.create", "Account created"
    EMAIL_VERIFY = "account.verify", "E-mail address verified"
    PASSWORD_RESET = "account.password", "Password reset"
    KEY_EXPIRE = "key.expire", "Key expired"
    KEY_ADDRESSES = "key.addresses", "Key addresses changed"


class AuditEntryQuerySet(models.QuerySet["AuditEntry"]):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnly("audit entries are never changed")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnly("audit entries are deleted only by retention (prune_before)")

    def prune_before(self, moment: datetime) -> int:
        """Delete the entries written before ``moment``; returns how many (retention)."""
        return models.QuerySet.delete(self.filter(at__lt=moment))[0]


class AuditEntry(models.Model):
    at = models.DateTimeField(default=timezone.now, db_index=True, editable=False)
    action = models.CharField(max_length=20, choices=AuditAction.choices, editable=False)
    account = models.ForeignKey(
        Account,
        null=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
        editable=False,
    )
    actor_kind = models.CharField(max_length=10, choices=ActorKind.choices, editable=False)
    actor = models.ForeignKey(
        User,
        null=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
        editable=False,
    )
    actor_label = models.CharField("by", max_length=254, editable=False)
    address = models.GenericIPAddressField("client address", null=True, editable=False)
    target = models.CharField(max_length=200, blank=True, editable=False)
    detail = models.JSONField(default=dict, blank=True, editable=False)

    objects = AuditEntryQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["account", "-at"], name="audit_account_at")]
        verbose_name = "audit entry"
        verbose_name_plural = "audit log"

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S}Z {self.action} by {self.actor_label}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnly("audit entries are never changed")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnly("audit entries are deleted only by retention (prune_before)")

    @property
    def summary(self) -> str:
        """What happened, in words, for the dashboard and the admin."""
        d = self.detail
        match self.action:
            case AuditAction.KEY_RENAME:
                return f"{self.target} renamed from “{d.get('from')}” to “{d.get('to')}”"
            case AuditAction.TIER_CHANGE if d.get("from") == d.get("to"):
                quota, window = d.get("quota"), d.get("window")
                return f"{d.get('to_label')} limits changed: {quota} requests per {window}"
            case AuditAction.TIER_CHANGE:
                return f"Plan changed from {d.get('from_label')} to {d.get('to_label')}"
            case AuditAction.MARKET_CHANGE:
                return f"Market changed from {d.get('from') or 'none'} to {d.get('to')}"
            case AuditAction.KEY_CREATE if d.get("expires_at"):
                return f"{self.target} created, expiring {_when(d['expires_at'])}"
            case AuditAction.KEY_ADDRESSES:
                allowed = d.get("to") or "any address"
                return f"{self.target} allowed addresses set to {allowed}"
            case AuditAction.KEY_CREATE | AuditAction.KEY_ROTATE | AuditAction.KEY_REVOKE:
                verb = self.get_action_display().removeprefix("Key ")
                return f"{self.target} {verb}"
            case AuditAction.KEY_EXPIRE:
                return f"{self.target} expired"
        return str(self.get_action_display())


def _when(value: object) -> str:
    """A stored ISO time as the activity log prints its times ("3 Dec 2026, 00:00 UTC",
    issue 40.6: one format on the page); the text as stored when it is not one."""
    try:
        at = datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    if at.tzinfo is not None:
        at = at.astimezone(UTC)
    return f"{at.day} {at:%b %Y, %H:%M} UTC"
