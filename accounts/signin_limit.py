"""One limit on password guessing for every sign-in path (issue 11.2): the dashboard's
sign-in form, the admin's, and the password-reset and sign-up request forms.

Policy (docs/dashboard.md, "Security"), over a sliding window of ``WINDOW``:

- at most ``settings.SIGNIN_MAX_FAILURES`` (10) wrong passwords per e-mail address and
  client address; the next attempt is refused, right password or wrong, until the
  oldest of them ages out. A right password clears that pair's count.
- at most ``settings.SIGNIN_ACCOUNT_CEILING`` (100) per e-mail address from all clients
  together: only guessing spread over many addresses reaches it, so one attacker cannot
  lock the owner out, and a botnet is still stopped.
- reset and sign-up requests count the same way, each kind apart (they send e-mail).

Unknown addresses count exactly like known ones, so the answer never tells whether an
account exists. Counting is race-free: an attempt is recorded *before* the password is
checked and the count then includes it, so of N parallel guesses at most the limit get
through, on any number of workers. Refused attempts are not recorded. Rows live in the
database (``SignInAttempt``), so the limit needs no Redis; time is passed in.
"""

from __future__ import annotations

import enum
import hashlib
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet

from accounts.models import SignInAttempt

WINDOW = timedelta(minutes=15)


class Kind(enum.StrEnum):
    SIGN_IN = "signin"
    RESET = "reset"
    SIGN_UP = "signup"


@dataclass(frozen=True, slots=True)
class Attempt:
    """An attempt let through; settle it with ``attempt_succeeded`` when it was right."""

    pk: int
    kind: Kind
    subject: str
    client: str


@dataclass(frozen=True, slots=True)
class Refusal:
    """Refused for ``retry_after`` more seconds (at least 1)."""

    kind: Kind
    retry_after: int

    @property
    def minutes(self) -> int:
        return max(1, math.ceil(self.retry_after / 60))


def subject_of(email: str) -> str:
    """The stored stand-in for an e-mail address: its SHA-256 (case and spaces ignored)."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def attempt_begin(*, kind: Kind, email: str, client: str, now: datetime) -> Attempt | Refusal:
    """Record one attempt at ``now`` unless the limit refuses it (module doc)."""
    subject = subject_of(email)
    since = now - WINDOW
    SignInAttempt.objects.filter(at__lte=since).delete()  # one indexed range delete
    row = SignInAttempt.objects.create(kind=kind, subject=subject, client=client, at=now)
    recent = SignInAttempt.objects.filter(kind=kind, subject=subject, at__gt=since)
    for rows, limit in (
        (recent.filter(client=client), settings.SIGNIN_MAX_FAILURES),
        (recent, settings.SIGNIN_ACCOUNT_CEILING),
    ):
        if rows.count() > limit:
            row.delete()
            return Refusal(kind=kind, retry_after=_wait(rows, limit, now))
    return Attempt(pk=row.pk, kind=kind, subject=subject, client=client)


def attempt_succeeded(attempt: Attempt) -> None:
    """The password was right: forget this pair's failures (the attempt included)."""
    SignInAttempt.objects.filter(
        kind=attempt.kind, subject=attempt.subject, client=attempt.client
    ).delete()


def _wait(rows: QuerySet[SignInAttempt], limit: int, now: datetime) -> int:
    """Seconds until fewer than ``limit`` of ``rows`` remain in the window: when the
    ``limit``-th most recent one ages out."""
    ats = list(rows.order_by("-at").values_list("at", flat=True)[:limit])
    oldest_counted = ats[min(limit, len(ats)) - 1]
    return max(1, math.ceil((oldest_counted + WINDOW - now).total_seconds()))
