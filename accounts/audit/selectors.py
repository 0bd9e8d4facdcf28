"""Reads of the audit log."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.audit.models import AuditEntry
from accounts.models import Account


def audit_for_account(*, account: Account) -> QuerySet[AuditEntry]:
    """``account``'s entries, newest first: its keys, plan and market changes, and the
    sign-ins (successful or not) of its owner's address."""
    return AuditEntry.objects.filter(account=account).order_by("-at", "-id")
