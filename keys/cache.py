"""The key caches: secret digest -> ``KeyPrincipal``, shared and in process.

The shared cache lives in the ``keys`` cache alias: Redis, shared by every worker on
every host, or a dummy cache (no caching) on the embedded default. Invalidation writes
a short-lived tombstone instead of deleting, and entries are only ever *added*: a
worker that read the database just before a revocation committed cannot put its stale
copy back while the tombstone stands.

With Redis, each worker also keeps the principals it used in its own memory for
``KEY_LOCAL_SECONDS`` (issue 13), each with the **epoch** of its account it was read
under: a random token in Redis (``epoch_key``, in the account's hash slot) that every
change to the account's keys, tier or market replaces, before and again after its
commit. A copy is used only while its epoch is still current: the metering script
checks that in the same round trip as the decision (metering/lua/consume.lua), and
unmetered views read the epoch (``epoch_current``). The epoch is always read *before*
the principal it tags, so a copy is never tagged newer than its content.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import transaction

from core import problems
from core.redis import UNREACHABLE, account_tag, set_many_replicated
from keys.principal import KeyPrincipal

logger = logging.getLogger("foodservice.keys")

TOMBSTONE = "invalidated"
TOMBSTONE_SECONDS = 60
# An epoch nobody changed lives this long; a missing epoch only makes every worker
# read its principals again once.
EPOCH_SECONDS = 24 * 3600


def _key(digest: str) -> str:
    return f"key:{digest}"


def cached_principal(digest: str) -> KeyPrincipal | None:
    """The cached principal, or None on a miss or a tombstone. Redis unreachable counts
    as a miss (the database answers), so the metering failure policy decides what a
    request gets during a Redis outage, not an exception here."""
    try:
        value = caches["keys"].get(_key(digest))
    except UNREACHABLE:
        return None
    return value if isinstance(value, KeyPrincipal) else None


def remember(digest: str, principal: KeyPrincipal) -> None:
    """Cache ``principal`` unless the entry exists (a tombstone, or a fresher copy).
    Skipped while Redis is unreachable."""
    try:
        caches["keys"].add(_key(digest), principal)
    except UNREACHABLE:
        return


def forget(digests: Iterable[str], *, account_id: int) -> None:
    """Invalidate the keys ``digests`` of ``account_id`` now and again once the
    surrounding transaction commits, so no worker serves the old state after the change
    is visible in the database: tombstones in the shared cache, and a new epoch of the
    account for the copies in the workers' memory."""
    tombstones = {_key(d): TOMBSTONE for d in digests}
    cache = caches["keys"]
    try:
        # Under Sentinel a replica must hold the tombstones and the new epoch too
        # (core/redis.py): one pipeline, one WAIT for both.
        epoch = {epoch_key(account_id): new_epoch()} if _redis() is not None else {}
        set_many_replicated(
            cache, tombstones, timeout=TOMBSTONE_SECONDS, raw=epoch, raw_timeout=EPOCH_SECONDS
        )
    except UNREACHABLE:
        # Without the tombstones other workers could keep serving the old state from
        # the cache if Redis comes back with its data: refuse the change instead (the
        # caller's transaction rolls back).
        raise problems.ServiceUnavailable(
            "The shared key cache is unreachable, so the change was not made; "
            "retry in a few seconds."
        ) from None
    transaction.on_commit(lambda: _tombstone_after_commit(tombstones, account_id))


def _tombstone_after_commit(tombstones: dict[str, str], account_id: int) -> None:
    """Renew the tombstones and the epoch once the change is visible. They were written
    before the commit already, so a failure here only shortens their life (a worker
    that read the old state in between keeps it until its copy expires): logged."""
    try:
        if tombstones:
            caches["keys"].set_many(tombstones, timeout=TOMBSTONE_SECONDS)
        epoch_bump(account_id)
    except UNREACHABLE:
        logger.warning("key cache unreachable after commit; tombstones not renewed")


# --- In-process copies and account epochs (issue 13) ----------------------------------


def local_enabled() -> bool:
    """Whether principals are kept in process: only when the key cache is shared (Redis),
    which holds the epochs; the embedded default reads the database every time."""
    return settings.KEY_LOCAL_SECONDS > 0 and _redis() is not None


def epoch_key(account_id: int) -> str:
    """The account's epoch: in the hash slot of its meter state (``{a<id>}``), so the
    metering script can read it on Redis Cluster."""
    return f"{settings.REDIS_KEY_PREFIX}:epoch:{account_tag(account_id)}"


def epoch_bump(account_id: int) -> None:
    """Give the account a new epoch: every worker's copy of its principals is stale.
    (``forget`` writes it with the tombstones instead, so that under Sentinel it waits
    for a replica with them.)"""
    client = _redis()
    if client is not None:
        client.set(epoch_key(account_id), new_epoch(), ex=EPOCH_SECONDS)


def new_epoch() -> str:
    return uuid.uuid4().hex


def epoch_current(account_id: int) -> str:
    """The account's epoch, made now when it has none. Raises one of
    ``core.redis.UNREACHABLE``."""
    client = _redis()
    fresh = uuid.uuid4().hex
    # SET NX GET: the existing value, or None when ours was set (one round trip).
    old = client.set(epoch_key(account_id), fresh, nx=True, get=True, ex=EPOCH_SECONDS)
    return fresh if old is None else old.decode()


# digest -> (principal, its account's epoch when read, monotonic deadline)
_local: dict[str, tuple[KeyPrincipal, str, float]] = {}
LOCAL_MAX = 10_000  # copies per process; the oldest half is dropped beyond it


def local_get(digest: str) -> tuple[KeyPrincipal, str] | None:
    """This worker's copy of the principal and the epoch it was read under, if young
    enough. Whether it is still current is for the caller to check (the epoch)."""
    entry = _local.get(digest)
    if entry is None or entry[2] < time.monotonic():
        return None
    return entry[0], entry[1]


def local_put(digest: str, principal: KeyPrincipal, epoch: str) -> None:
    if len(_local) >= LOCAL_MAX:
        for old in list(_local)[: LOCAL_MAX // 2]:
            _local.pop(old, None)
    _local[digest] = (principal, epoch, time.monotonic() + settings.KEY_LOCAL_SECONDS)


def local_drop(digest: str) -> None:
    _local.pop(digest, None)


def _redis() -> Any:
    """The raw client of the ``keys`` cache when it is Redis, else None."""
    if "django_redis" not in settings.CACHES["keys"]["BACKEND"]:
        return None
    from django_redis import get_redis_connection

    return get_redis_connection("keys")
