"""Slows down password guessing on the sign-in form (issue 5: repeated failed sign-ins
are blocked).

Failures are counted per e-mail address (hashed, whether or not an account exists, so
the answer never tells whether an address is registered) in fixed windows of
``WINDOW_SECONDS``. The ``MAX_FAILURES``-th failure in a window locks the address for
``LOCK_SECONDS``; a successful sign-in clears the count. Counts live in the default
cache: Redis when ``REDIS_URL`` is set (shared by every worker), per process otherwise.
``cache.incr`` is atomic on both, so parallel guesses cannot slip past the limit.
Time is passed in, so tests control it whatever the cache's own clock says.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from django.core.cache import cache

MAX_FAILURES = 5
WINDOW_SECONDS = 15 * 60
LOCK_SECONDS = 15 * 60
_KEEP = WINDOW_SECONDS + LOCK_SECONDS  # cache expiry: long enough for either key


@dataclass(frozen=True, slots=True)
class Lock:
    """The address is locked for ``retry_after`` more seconds (at least 1)."""

    retry_after: int

    @property
    def minutes(self) -> int:
        return max(1, math.ceil(self.retry_after / 60))


def _subject(email: str) -> str:
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]


def lock_for(*, email: str, now: float) -> Lock | None:
    """The lock on ``email`` at ``now`` (Unix seconds), or None when it may try."""
    until = cache.get(f"signin-lock:{_subject(email)}")
    if until is None or until <= now:
        return None
    return Lock(retry_after=max(1, math.ceil(until - now)))


def record_failure(*, email: str, now: float) -> Lock | None:
    """Count one failed sign-in; returns the lock when this failure triggered one."""
    subject = _subject(email)
    counter = f"signin-fail:{subject}:{int(now // WINDOW_SECONDS)}"
    cache.add(counter, 0, timeout=_KEEP)
    failures = cache.incr(counter)
    if failures < MAX_FAILURES:
        return None
    cache.set(f"signin-lock:{subject}", now + LOCK_SECONDS, timeout=_KEEP)
    return Lock(retry_after=LOCK_SECONDS)


def record_success(*, email: str, now: float) -> None:
    """Forget the failures of the current window after a good sign-in."""
    cache.delete(f"signin-fail:{_subject(email)}:{int(now // WINDOW_SECONDS)}")
