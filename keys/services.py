"""Writes of API keys: create, rotate, revoke, rename (spec 3.1).

The dashboard, the admin and the operator commands all call these, so a key revoked
in one place is revoked the same way everywhere. Raw secrets leave ``key_create`` and
``key_rotate`` once, in their return value, and are never stored or logged.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.audit.actors import Actor
from accounts.audit.models import AuditAction
from accounts.audit.services import audit_record, key_target
from accounts.models import Account
from core import problems
from core.controlchars import character_refusal
from keys import cache, secrets
from keys.models import ApiKey, KeyState
from keys.selectors import key_count_active

logger = logging.getLogger("foodservice.keys")

LABEL_MAX = 100


def key_create(
    *,
    account: Account,
    label: str,
    expires_at: datetime | None = None,
    now: datetime | None = None,
    actor: Actor | None = None,
) -> tuple[ApiKey, str]:
    """A new active key and its raw secret: the only time the secret exists.

    At most ``MAX_KEYS_PER_ACCOUNT`` active keys (spec 2.1), enforced without races: the
    account row is locked (PostgreSQL ``SELECT ... FOR UPDATE``; SQLite transactions
    begin IMMEDIATE) while the keys are counted and the new one inserted.
    """
    now = now or timezone.now()
    label = key_label_clean(label)
    with transaction.atomic():
        Account.objects.select_for_update().filter(pk=account.pk).first()
        if key_count_active(account=account, now=now) >= settings.MAX_KEYS_PER_ACCOUNT:
            raise problems.KeyLimitReached()
        secret, digest = _fresh_secret()
        key = ApiKey.objects.create(
            account=account,
            label=label,
            secret_hash=digest,
            hint=secrets.hint(secret),
            created_at=now,
            expires_at=expires_at,
        )
        detail = {"expires_at": expires_at.isoformat()} if expires_at else None
        _audit(AuditAction.KEY_CREATE, key, actor, now, detail=detail)
    logger.info("key created", extra={"key_id": key.pk, "account_id": account.pk})
    return key, secret


def key_rotate(
    *, key: ApiKey, now: datetime | None = None, actor: Actor | None = None
) -> tuple[ApiKey, str]:
    """A fresh secret for an active key, returned once; the old one fails from the next
    request on. Id, label, tier and usage history are kept (spec 3.1)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = ApiKey.objects.select_for_update().get(pk=key.pk)
        if locked.state_at(now) != KeyState.ACTIVE:
            raise problems.KeyNotActive()
        old_digest = locked.secret_hash
        secret, digest = _fresh_secret()
        locked.secret_hash, locked.hint, locked.rotated_at = digest, secrets.hint(secret), now
        locked.save(update_fields=["secret_hash", "hint", "rotated_at"])
        cache.forget([old_digest], account_id=locked.account_id)
        _audit(AuditAction.KEY_ROTATE, locked, actor, now)
    logger.info("key rotated", extra={"key_id": key.pk})
    _refresh(key, locked)
    return key, secret


def key_revoke(*, key: ApiKey, now: datetime | None = None, actor: Actor | None = None) -> ApiKey:
    """Revoke ``key``: it stops authenticating on the next request. Idempotent."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = ApiKey.objects.select_for_update().get(pk=key.pk)
        if locked.revoked_at is None:
            locked.revoked_at = now
            locked.save(update_fields=["revoked_at"])
            logger.info("key revoked", extra={"key_id": key.pk})
            _audit(AuditAction.KEY_REVOKE, locked, actor, now)
        cache.forget([locked.secret_hash], account_id=locked.account_id)
    _refresh(key, locked)
    return key


def key_rename(*, key: ApiKey, label: str, actor: Actor | None = None) -> ApiKey:
    """Give ``key`` a new label; a change is audited (``actor`` did it)."""
    label = key_label_clean(label)
    with transaction.atomic():
        old = ApiKey.objects.filter(pk=key.pk).values_list("label", flat=True).first()
        key.label = label
        key.save(update_fields=["label"])
        if old != label:
            audit_record(
                action=AuditAction.KEY_RENAME,
                account=key.account_id,
                actor=actor,
                target=f"Key {key.pk}",
                detail={"from": old, "to": label},
            )
    return key


def key_set_allowed_addresses(
    *, key: ApiKey, addresses: Sequence[str], actor: Actor | None = None
) -> ApiKey:
    """Limit ``key`` to requests from ``addresses`` (normalised networks, see
    ``keys.policies.parse_allowed_addresses``; empty: any address). From the next
    request on every worker (the key's cached principals are dropped); a change is
    audited with the lists before and after (issue 29.3)."""
    addresses = list(addresses)
    with transaction.atomic():
        locked = ApiKey.objects.select_for_update().get(pk=key.pk)
        old = list(locked.allowed_addresses or [])
        if old != addresses:
            locked.allowed_addresses = addresses
            locked.save(update_fields=["allowed_addresses"])
            cache.forget([locked.secret_hash], account_id=locked.account_id)
            detail = {"from": ", ".join(old), "to": ", ".join(addresses)}
            _audit(AuditAction.KEY_ADDRESSES, locked, actor, detail=detail)
    key.allowed_addresses = addresses
    return key


def keys_forget_account(*, account: Account) -> None:
    """Drop every cached principal of ``account`` (its tier or market changed)."""
    cache.forget(
        ApiKey.objects.filter(account=account).values_list("secret_hash", flat=True),
        account_id=account.pk,
    )


def _audit(
    action: AuditAction,
    key: ApiKey,
    actor: Actor | None,
    now: datetime | None = None,
    *,
    detail: dict[str, str] | None = None,
) -> None:
    target = key_target(key)
    audit_record(
        action=action, account=key.account_id, actor=actor, target=target, detail=detail, now=now
    )


def _fresh_secret() -> tuple[str, str]:
    secret = secrets.generate()
    # A collision (2**-256) would violate the unique index and roll back, never merge keys.
    return secret, secrets.digest(secret, pepper=settings.KEY_PEPPER)


def key_label_clean(label: str) -> str:
    """``label`` as stored: runs of whitespace folded into one space. Raises
    ``ValidationFailed`` (field ``label``) for a blank label, one over ``LABEL_MAX``
    characters, or one holding a control or bidi control character (a label is shown in
    the dashboard, the admin and the commands' output; U+202E would show "gnp.exe" as
    "exe.png"). Tab and new lines fold like spaces; the check comes before the folding,
    which would take U+0085 (NEL) for a space. The dashboard's form, the admin and the
    commands all reach it (issue 36.6)."""
    refusal = character_refusal(str(label), spacing=True)
    if refusal:
        raise problems.ValidationFailed({"label": refusal})
    label = " ".join(str(label).split())
    if not label:
        raise problems.ValidationFailed({"label": "A label is required."})
    if len(label) > LABEL_MAX:
        raise problems.ValidationFailed({"label": f"At most {LABEL_MAX} characters."})
    return label


def _refresh(target: ApiKey, source: ApiKey) -> None:
    for field in ("secret_hash", "hint", "rotated_at", "revoked_at"):
        setattr(target, field, getattr(source, field))
