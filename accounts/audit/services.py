"""Writes of the audit log: one function that records, one that prunes (retention).

Call ``audit_record`` inside the transaction of the change it records, so the change and
its entry commit or roll back together. Nothing secret is ever passed in (key ids and
labels, tiers, markets, e-mail addresses); as a second guard every string is run
through the log redactor, so a value shaped like an API key is stored as ``[redacted]``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from accounts.audit.actors import SYSTEM, Actor
from accounts.audit.models import AuditAction, AuditEntry
from accounts.models import Account
from core.logformat import redact


def audit_record(
    *,
    action: AuditAction,
    account: Account | int | None,
    actor: Actor | None = None,
    target: str = "",
    detail: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> AuditEntry:
    """Append one entry: ``action`` on ``account`` (or its id) by ``actor`` (``SYSTEM``
    when None) at ``now``. ``target`` names the object (``key 12 “ci”``); ``detail``
    holds what changed, e.g. ``{"from": "taster", "to": "sous_chef"}``."""
    actor = actor or SYSTEM
    account_id = account.pk if isinstance(account, Account) else account
    return AuditEntry.objects.create(
        at=now or timezone.now(),
        action=action,
        account_id=account_id,
        actor_kind=actor.kind,
        actor_id=actor.user_id,
        actor_label=redact(actor.label)[:254],
        address=actor.address,
        target=redact(target)[:200],
        detail={k: _clean(v) for k, v in (detail or {}).items()},
    )


def audit_prune(*, older_than: timedelta, now: datetime | None = None) -> int:
    """Delete the entries older than ``older_than``; returns how many were deleted."""
    return AuditEntry.objects.prune_before((now or timezone.now()) - older_than)


def key_target(key: Any) -> str:
    """How an entry names an API key: its id and label (never its secret or hint)."""
    return f"Key {key.pk} “{key.label}”"


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    return redact(str(value))
