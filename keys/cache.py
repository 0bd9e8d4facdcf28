"""The shared key cache: secret digest -> ``KeyPrincipal``.

Lives in the ``keys`` cache alias: Redis, shared by every worker on every host, or a
dummy cache (no caching) on the embedded default. Invalidation writes a short-lived
tombstone instead of deleting, and entries are only ever *added*: a worker that read
the database just before a revocation committed cannot put its stale copy back while
the tombstone stands.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.core.cache import caches
from django.db import transaction

from foodservice import problems
from foodservice.redis import UNREACHABLE, set_many_replicated
from keys.principal import KeyPrincipal

logger = logging.getLogger("foodservice.keys")

TOMBSTONE = "invalidated"
TOMBSTONE_SECONDS = 60


REDIS_UNREACHABLE = UNREACHABLE  # the errors of an unreachable Redis (any topology)


def _key(digest: str) -> str:
    return f"key:{digest}"


def cached_principal(digest: str) -> KeyPrincipal | None:
    """The cached principal, or None on a miss or a tombstone. Redis unreachable counts
    as a miss (the database answers), so the metering failure policy decides what a
    request gets during a Redis outage, not an exception here."""
    try:
        value = caches["keys"].get(_key(digest))
    except REDIS_UNREACHABLE:
        return None
    return value if isinstance(value, KeyPrincipal) else None


def remember(digest: str, principal: KeyPrincipal) -> None:
    """Cache ``principal`` unless the entry exists (a tombstone, or a fresher copy).
    Skipped while Redis is unreachable."""
    try:
        caches["keys"].add(_key(digest), principal)
    except REDIS_UNREACHABLE:
        return


def forget(digests: Iterable[str]) -> None:
    """Invalidate now and again once the surrounding transaction commits, so no worker
    serves the old state after the change is visible in the database."""
    tombstones = {_key(d): TOMBSTONE for d in digests}
    if not tombstones:
        return
    cache = caches["keys"]
    try:
        # Under Sentinel a replica must hold the tombstones too (foodservice/redis.py).
        set_many_replicated(cache, tombstones, timeout=TOMBSTONE_SECONDS)
    except REDIS_UNREACHABLE:
        # Without the tombstones other workers could keep serving the old state from
        # the cache if Redis comes back with its data: refuse the change instead (the
        # caller's transaction rolls back).
        raise problems.ServiceUnavailable(
            "The shared key cache is unreachable, so the change was not made; "
            "retry in a few seconds."
        ) from None
    transaction.on_commit(lambda: _tombstone_after_commit(tombstones))


def _tombstone_after_commit(tombstones: dict[str, str]) -> None:
    """Renew the tombstones once the change is visible. They were written before the
    commit already, so a failure here only shortens their life: logged, not raised."""
    try:
        caches["keys"].set_many(tombstones, timeout=TOMBSTONE_SECONDS)
    except REDIS_UNREACHABLE:
        logger.warning("key cache unreachable after commit; tombstones not renewed")
