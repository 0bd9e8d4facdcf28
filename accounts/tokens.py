"""Signed, time-limited e-mail verification tokens (spec 5.4: sign-up needs a verified
e-mail address). Pure: no database.

A token is ``TimestampSigner`` over ``{"u": <user id>, "e": <e-mail>}`` with its own
salt, so it cannot be swapped for a session or password-reset token. Binding the e-mail
means a token stops working if the address changes. Verifying twice is harmless, so a
token needs no single-use state.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core import signing

SALT = "foodservice.accounts.email-verification"
# How long a verification link works: three days unless settings say otherwise.
DEFAULT_MAX_AGE = 3 * 24 * 3600


@dataclass(frozen=True, slots=True)
class VerificationClaim:
    """What a valid token says: the user with ``user_id`` owns ``email``."""

    user_id: int
    email: str


def max_age() -> int:
    return int(getattr(settings, "EMAIL_VERIFICATION_MAX_AGE", DEFAULT_MAX_AGE))


def make_token(*, user_id: int, email: str) -> str:
    """A URL-safe token for the verification link (no ``/``; safe in a path segment)."""
    return signing.TimestampSigner(salt=SALT).sign_object({"u": user_id, "e": email})


def read_token(token: str) -> VerificationClaim | None:
    """The claim of a valid, unexpired token; None for anything tampered, malformed or
    older than ``max_age()`` seconds."""
    try:
        data = signing.TimestampSigner(salt=SALT).unsign_object(token, max_age=max_age())
    except (signing.BadSignature, ValueError, TypeError):  # SignatureExpired is a BadSignature
        return None
    if not isinstance(data, dict):
        return None
    user_id, email = data.get("u"), data.get("e")
    if not isinstance(user_id, int) or not isinstance(email, str):
        return None
    return VerificationClaim(user_id=user_id, email=email)
