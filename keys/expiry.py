"""Reminders before a key expires, and the audit entry once it has (issue 29.2).

``key_expiry_check`` runs off the request path: from each web worker's usage flusher on
its sweep rounds (metering/recorder.py, about once a minute) and from
``manage.py send_key_expiry_notices`` (cron, or by hand). It is idempotent: each stage
(``keys.policies.expiry_stage``: 7 days before, 1 day before, expired) is claimed in
``KeyExpiryNotice`` before it is acted on, so running it again, from any number of
workers at once, sends nothing twice. The owner can switch the e-mails off on the plan
page (``AlertPreference.expiry_alerts``, next to the quota alerts); the audit entry of
the expiry is written either way.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.audit.models import AuditAction
from accounts.audit.services import audit_record, key_target
from keys.models import ApiKey, KeyExpiryNotice
from keys.policies import EXPIRY_STAGES, expiry_stage

logger = logging.getLogger("foodservice.keys")

# A key that expired longer ago than this when first checked gets no audit entry
# backfilled (a fresh install, or a checker stopped for weeks).
AUDIT_LOOKBACK = timedelta(days=7)


def key_expiry_check(*, now: datetime | None = None) -> list[KeyExpiryNotice]:
    """Act on every stage due at ``now``: e-mail the owner 7 days and 1 day before a
    key expires (unless switched off), audit the expiry once it is past. Returns the
    stages acted on. Revoked keys are left alone; an e-mail that cannot be sent is
    logged and retried by the next check."""
    now = now or timezone.now()
    horizon = now + timedelta(days=max(EXPIRY_STAGES))
    keys = (
        ApiKey.objects.filter(
            revoked_at__isnull=True,
            expires_at__isnull=False,
            expires_at__lte=horizon,
            expires_at__gt=now - AUDIT_LOOKBACK,
        )
        .select_related("account__owner", "account__alert_preference")
        .order_by("expires_at", "id")
    )
    done = []
    for key in keys:
        stage = expiry_stage(key.expires_at, now)  # type: ignore[arg-type]
        if stage is None or key.account.owner is None:
            continue
        notice = _act(key, stage, now)
        if notice is not None:
            done.append(notice)
    return done


def _act(key: ApiKey, stage: int, now: datetime) -> KeyExpiryNotice | None:
    done = KeyExpiryNotice.objects.filter(key=key, expires_at=key.expires_at)
    if done.filter(stage__lte=stage).exists():  # this stage, or a later one, was done
        return None
    try:
        with transaction.atomic():
            notice = KeyExpiryNotice.objects.create(
                key=key, stage=stage, expires_at=key.expires_at, at=now
            )
            if stage == 0:
                audit_record(
                    action=AuditAction.KEY_EXPIRE,
                    account=key.account_id,
                    target=key_target(key),
                    detail={"expires_at": key.expires_at.isoformat()},  # type: ignore[union-attr]
                    now=now,
                )
    except IntegrityError:  # another worker claimed it first
        return None
    if stage == 0 or not _wants_emails(key):
        return notice
    try:
        _send(key, stage)
    except Exception:  # SMTP down: forget the claim, the next check retries
        KeyExpiryNotice.objects.filter(pk=notice.pk).delete()
        logger.exception("key expiry e-mail failed", extra={"key_id": key.pk})
        return None
    logger.info("key expiry reminder sent", extra={"key_id": key.pk, "stage": stage})
    return notice


def _wants_emails(key: ApiKey) -> bool:
    if not key.account.owner.is_active:
        return False
    preference = getattr(key.account, "alert_preference", None)
    return preference is None or preference.expiry_alerts


def _send(key: ApiKey, stage: int) -> None:
    """The reminder: the key's id, label and expiry, never its secret or hint."""
    context = {
        "key": key,
        "stage": stage,
        "keys_url": f"{settings.BASE_URL}{reverse('keys:list')}",
        "plan_url": f"{settings.BASE_URL}{reverse('plan')}",
    }
    subject = render_to_string("keys/email/expiry_subject.txt", context).strip()
    body = render_to_string("keys/email/expiry_body.txt", context)
    send_mail(subject, body, None, [key.account.owner.email])
