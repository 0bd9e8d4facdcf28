"""Reads of API keys."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import Account
from core import problems
from core.redis import UNREACHABLE
from keys import cache, secrets
from keys.models import ApiKey
from keys.principal import KeyPrincipal


def principal_get(
    *, secret: str, now: datetime | None = None, verify: bool = True
) -> tuple[KeyPrincipal, str | None] | None:
    """The principal of an active key with the account epoch it was read under (None
    when principals are not kept in process, or Redis is unreachable); None for
    anything else.

    Malformed secrets are refused before any I/O. A revoked, expired and unknown key,
    and every key of a deactivated owner (``is_active`` false: the one state that stops
    an account), all take the same path (one indexed query that filters them out), so
    neither the answer nor its timing tells them apart. Hot keys are served from the
    caches (keys/cache.py), checked current; ``keys.signals`` clears them and bumps the
    account's epoch when the owner's ``is_active`` changes.

    ``verify=False`` may answer this worker's copy without checking that its epoch is
    still current: only for a caller that checks it itself in the same step as its
    decision (the metering script); it must call again with ``verify=True`` when the
    epoch turns out stale."""
    if not secrets.is_well_formed(secret):
        return None
    now = now or timezone.now()
    digest = secrets.digest(secret, pepper=settings.KEY_PEPPER)
    if not cache.local_enabled():
        principal = _shared_or_database(secret, digest, now)
        return None if principal is None else (principal, None)
    epoch = None
    copy = cache.local_get(digest)
    if copy is not None and not copy[0].expired_at(now):
        principal, epoch = copy
        if not verify:
            return principal, epoch
        try:
            current = cache.epoch_current(principal.account_id)
        except UNREACHABLE:
            current = None
        if current == epoch:
            return principal, epoch
        epoch = current  # read before the principal is read again below
    cache.local_drop(digest)
    principal = _shared_or_database(secret, digest, now)
    if principal is None:
        return None
    if epoch is None:
        # The epoch must be no newer than the principal it tags: read it, then the
        # principal again (from the shared cache, usually).
        try:
            epoch = cache.epoch_current(principal.account_id)
        except UNREACHABLE:
            return principal, None
        principal = _shared_or_database(secret, digest, now)
        if principal is None:
            return None
    cache.local_put(digest, principal, epoch)
    return principal, epoch


def _shared_or_database(secret: str, digest: str, now: datetime) -> KeyPrincipal | None:
    principal = cache.cached_principal(digest)
    # A cached key that has since expired takes the database path like any unknown key,
    # so the 401's timing never tells that the key once existed.
    if principal is None or principal.expired_at(now):
        key = (
            ApiKey.objects.active(now)
            .select_related("account")
            .filter(secret_hash=digest, account__owner__is_active=True)
            .first()
        )
        if key is None or not secrets.matches(secret, key.secret_hash, pepper=settings.KEY_PEPPER):
            return None
        principal = principal_build(key=key)
        cache.remember(digest, principal)
    return None if principal.expired_at(now) else principal


def principal_build(*, key: ApiKey) -> KeyPrincipal:
    """The principal (what a request needs of its key and account) of ``key``. Reads
    ``key.account``: load it with the key (``select_related``) to spare a query."""
    account = key.account
    return KeyPrincipal(
        key_id=key.pk,
        account_id=account.pk,
        tier=account.tier,
        limits=account.limits,
        market=account.market,
        billing_anchor=account.billing_anchor,
        expires_at=key.expires_at,
        allowed_addresses=tuple(key.allowed_addresses or ()),
    )


def key_list(*, account: Account) -> QuerySet[ApiKey]:
    """Every key of the account, revoked and expired ones included (their history stays)."""
    return ApiKey.objects.filter(account=account).order_by("created_at", "id")


def key_get(*, key_id: int | str, account: Account | None = None) -> ApiKey:
    """The key with ``key_id`` (of ``account`` when given), or the not-found problem.

    Scoping by account is how the dashboard makes another account's key a 404."""
    text = str(key_id)
    # ASCII digits only: int() also reads '١٢' (Arabic-Indic digits) as 12 (issue 36.3).
    if not (text.isascii() and text.isdigit()) or len(text) > 18:
        raise problems.NotFound(f"No key with id {key_id!r}.")
    pk = int(text)
    queryset = ApiKey.objects.select_related("account__owner")
    if account is not None:
        queryset = queryset.filter(account=account)
    key = queryset.filter(pk=pk).first()
    if key is None:
        raise problems.NotFound(f"No key with id {key_id!r}.")
    return key


def key_list_active(*, account: Account, now: datetime) -> QuerySet[ApiKey]:
    """The account's keys a request may be made with at ``now``: not revoked, not
    expired; oldest first."""
    return ApiKey.objects.filter(account=account).active(now).order_by("created_at", "id")


def key_count_active(*, account: Account, now: datetime) -> int:
    return key_list_active(account=account, now=now).count()


def keys_by_digest(digests: Sequence[str]) -> dict[str, tuple[int, int]]:
    """``digest -> (key id, account id)`` of the keys, revoked and expired ones
    included, stored under these digests; one query. For the usage log only (attributing
    a refused request, off the request's path): never an authentication."""
    found = ApiKey.objects.filter(secret_hash__in=list(digests)).values_list(
        "secret_hash", "pk", "account_id"
    )
    return {digest: (key_id, account_id) for digest, key_id, account_id in found}


def key_exists(*, key_id: int, account_id: int) -> bool:
    """Whether ``key_id`` is a key (in any state) of the account."""
    return ApiKey.objects.filter(pk=key_id, account_id=account_id).exists()
