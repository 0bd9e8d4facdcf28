"""Sign-ins into the audit log, through Django's own auth signals (issue 16.3).

``user_logged_in`` and ``user_login_failed`` are sent by ``django.contrib.auth`` for the
dashboard's sign-in form and the admin's alike, so neither view is touched. A failure
records the address that was tried (and, when it belongs to an account, that account,
so its owner sees the attempt); Django has already masked the password in
``credentials`` and it is never read here.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest
from django.urls import reverse

from accounts.audit.actors import Actor, ActorKind, client_address
from accounts.audit.models import AuditAction
from accounts.audit.services import audit_record
from accounts.models import Account, User
from core.requestnotes import notes_of


def _where(request: HttpRequest | None) -> str:
    path = getattr(request, "path", "") or ""
    return "admin" if path.startswith(reverse("admin:index")) else "dashboard"


@receiver(user_logged_in, dispatch_uid="audit-sign-in")
def record_sign_in(sender: Any, request: HttpRequest | None, user: User, **kwargs: Any) -> None:
    actor = Actor(
        kind=ActorKind.USER,
        label=user.email,
        user_id=user.pk,
        address=client_address(request),
    )
    account = Account.objects.filter(owner=user).values_list("pk", flat=True).first()
    audit_record(
        action=AuditAction.SIGN_IN,
        account=account,
        actor=actor,
        target=user.email,
        detail={"via": _where(request)},
    )


@receiver(user_login_failed, dispatch_uid="audit-sign-in-failed")
def record_sign_in_failure(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    if request is not None and notes_of(request).signin_refusal is not None:
        # Refused by the sign-in limit (accounts.backends): no password was checked, and
        # recording it would let anyone flood the account's Activity page (issue 24.7).
        return
    tried = str(credentials.get("username") or credentials.get("email") or "").strip().lower()
    user = User.objects.filter(email=tried).first() if tried else None
    account = None
    if user is not None:
        account = Account.objects.filter(owner=user).values_list("pk", flat=True).first()
    actor = Actor(
        kind=ActorKind.ANONYMOUS, label=tried or "(no address)", address=client_address(request)
    )
    audit_record(
        action=AuditAction.SIGN_IN_FAILED,
        account=account,
        actor=actor,
        target=tried,
        detail={"via": _where(request)},
    )
