"""Writes of accounts: create, change tier, choose market (spec 2.1, 3.2, 3.3).

Every change that alters what a key may do drops the account's keys from the shared
key cache, so it applies to every key on the next request, on every worker.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import datetime

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.audit.actors import Actor
from accounts.audit.models import AuditAction
from accounts.audit.services import audit_record
from accounts.models import Account, User
from accounts.signals import account_limits_changed
from accounts.tiers import Tier, TierLimits
from core import problems

_MARKET = re.compile(r"[A-Za-z]{2}")


def account_create(
    *,
    email: str,
    password: str | None = None,
    tier: str = Tier.TASTER,
    market: str = "",
    offered: Collection[str] | None = None,
    email_verified: bool = False,
    now: datetime | None = None,
    actor: Actor | None = None,
) -> Account:
    """A user and their account, on ``tier`` (Taster unless told otherwise), in
    ``market`` when given (one of ``offered``: ``account_set_market``).

    ``email_verified`` is for accounts an operator vouches for (``create_account``,
    ``setup_demo``); sign-ups verify through the e-mailed link instead."""
    email = User.objects.normalize_email(email).strip().lower()
    try:
        validate_email(email)
    except DjangoValidationError:
        raise problems.ValidationFailed({"email": "Enter a valid e-mail address."}) from None
    taken = problems.ValidationFailed({"email": "An account with this e-mail already exists."})
    if User.objects.filter(email=email).exists():
        raise taken
    with transaction.atomic():
        try:
            with transaction.atomic():
                user = User.objects.create_user(
                    email=email,
                    password=password,
                    email_verified_at=(now or timezone.now()) if email_verified else None,
                )
        except IntegrityError:  # a concurrent sign-up with the same address won
            raise taken from None
        account = Account.objects.create(owner=user)
        # Issue 29: the Activity log starts with the account itself.
        audit_record(
            action=AuditAction.ACCOUNT_CREATE,
            account=account,
            actor=actor or Actor.for_user(user),
            target=email,
            now=now,
        )
        if tier != Tier.TASTER:
            account = account_set_tier(account=account, tier=tier, now=now, actor=actor)
        if market:
            account = account_set_market(
                account=account, market=market, offered=offered, actor=actor
            )
    return account


def account_for_user(*, user: User) -> Account:
    """``user``'s account, created (Taster, no market) on first need: a user made by
    ``createsuperuser`` or in the admin has none until then (issue 11.5). Safe under
    concurrency: the one-to-one constraint lets one creation win and the rest read it."""
    try:
        return Account.objects.select_related("owner").get(owner=user)
    except Account.DoesNotExist:
        pass
    try:
        with transaction.atomic():
            return Account.objects.create(owner=user)
    except IntegrityError:  # a concurrent first request created it
        return Account.objects.select_related("owner").get(owner=user)


def account_set_tier(
    *,
    account: Account,
    tier: str,
    custom: TierLimits | None = None,
    now: datetime | None = None,
    actor: Actor | None = None,
) -> Account:
    """Move ``account`` to ``tier``, effective for every key on the next request.

    Billing periods (docs/metering.md "Changing tier"): moving onto a monthly window from a daily
    one starts a billing period at ``now``; moving between monthly tiers keeps the
    anchor (spec 3.3: renewal date and usage spent are kept, the ceiling rises at once);
    moving onto a daily window clears it. ``custom`` sets Executive Chef's negotiated
    limits and is refused on any other tier.
    """
    try:
        tier = Tier(tier)
    except ValueError:
        choices = ", ".join(Tier.values)
        raise problems.ValidationFailed(
            {"tier": f"Unknown tier {tier!r}; one of {choices}."}
        ) from None
    if custom is not None and tier != Tier.EXECUTIVE_CHEF:
        raise problems.ValidationFailed({"tier": "Custom limits are for executive_chef only."})
    now = now or timezone.now()
    with transaction.atomic():
        account = Account.objects.select_for_update().get(pk=account.pk)
        old_window, old_tier, old_limits = account.limits.window, account.tier, account.limits
        account.tier = tier
        account.custom_quota = custom.quota if custom else None
        account.custom_window = custom.window if custom else ""
        account.custom_rate = custom.rate if custom else None
        account.custom_burst = custom.burst if custom else None
        new_window = account.limits.window
        if new_window == "day":
            account.billing_anchor = None
        elif old_window != "month" or account.billing_anchor is None:
            account.billing_anchor = now
        account.save()
        account_limits_changed.send(sender=Account, account=account)
        _audit_tier(account, old_tier, old_limits, actor, now)
    return account


def account_set_market(
    *,
    account: Account,
    market: str,
    offered: Collection[str] | None = None,
    actor: Actor | None = None,
) -> Account:
    """Select the account's market (spec 3.2): an ISO 3166-1 alpha-2 code, one of
    ``offered`` (the catalogue's markets: the caller asks the catalogue, which lies
    above this app; None only checks the code's form, for operators and tests)."""
    if not isinstance(market, str) or not _MARKET.fullmatch(market):
        raise problems.ValidationFailed({"market": "A two-letter ISO 3166-1 country code."})
    market = market.upper()
    if offered is not None and market not in offered:
        raise problems.ValidationFailed(
            {"market": f"{market} is not offered; choose one of {', '.join(offered)}."}
        )
    with transaction.atomic():
        row = Account.objects.select_for_update().filter(pk=account.pk)
        old = row.values_list("market", flat=True).first()
        row.update(market=market, updated_at=timezone.now())
        account.market = market
        account_limits_changed.send(sender=Account, account=account)
        if old != market:
            audit_record(
                action=AuditAction.MARKET_CHANGE,
                account=account,
                actor=actor,
                detail={"from": old or "", "to": market},
            )
    return account


def _audit_tier(
    account: Account, old_tier: str, old: TierLimits, actor: Actor | None, now: datetime
) -> None:
    """One entry per change of tier or of negotiated limits (none when nothing changed)."""
    new = account.limits
    if old_tier == account.tier and old == new:
        return
    detail = {
        "from": old_tier,
        "to": account.tier,
        "from_label": Tier(old_tier).label,
        "to_label": Tier(account.tier).label,
        "quota": new.quota,
        "window": new.window,
    }
    audit_record(
        action=AuditAction.TIER_CHANGE, account=account, actor=actor, detail=detail, now=now
    )


def user_verify_email(
    *, user: User, now: datetime | None = None, actor: Actor | None = None
) -> User:
    """Mark ``user``'s e-mail address verified (spec 5.4), from ``now``. Idempotent: the
    first verification time is kept."""
    if user.email_verified_at is None:
        user.email_verified_at = now or timezone.now()
        changed = User.objects.filter(pk=user.pk, email_verified_at__isnull=True).update(
            email_verified_at=user.email_verified_at
        )
        account = Account.objects.filter(owner=user).first()
        if changed and account is not None:  # issue 29: audited once, when it happens
            audit_record(
                action=AuditAction.EMAIL_VERIFY,
                account=account,
                actor=actor or Actor.for_user(user),
                target=user.email,
                now=user.email_verified_at,
            )
    return user


def user_password_reset_audit(*, user: User, actor: Actor | None = None) -> None:
    """Record that ``user`` chose a new password through a reset link (issue 29)."""
    account = Account.objects.filter(owner=user).first()
    if account is not None:
        audit_record(
            action=AuditAction.PASSWORD_RESET,
            account=account,
            actor=actor or Actor.for_user(user),
            target=user.email,
        )
