"""API key authentication for DRF (spec 5)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request

from core.problems import Unauthorized
from core.requestnotes import notes_of
from keys import secrets
from keys.policies import principal_allows_address
from keys.principal import KeyPrincipal
from keys.selectors import principal_get

MAX_HEADER_LENGTH = 256  # a real key is 61 characters


@dataclass(frozen=True, slots=True)
class KeyHeaders:
    """The key a request carries, from ``X-API-Key: K`` or ``Authorization: Bearer K``.

    Both forms are equivalent. When both are sent they must carry the same key; a
    disagreement, an ``Authorization`` header of another scheme, or an over-long value
    is malformed. ``key`` is None when neither header is present.
    """

    key: str | None

    @classmethod
    def parse(cls, meta: dict[str, str]) -> KeyHeaders:
        """Raises ``Unauthorized`` for malformed headers."""
        candidates = set()
        if "HTTP_X_API_KEY" in meta:
            candidates.add(meta["HTTP_X_API_KEY"].strip())
        if "HTTP_AUTHORIZATION" in meta:
            scheme, _, token = meta["HTTP_AUTHORIZATION"].strip().partition(" ")
            if scheme.lower() != "bearer":
                raise Unauthorized()
            candidates.add(token.strip())
        if not candidates:
            return cls(key=None)
        if len(candidates) > 1:
            raise Unauthorized()
        (key,) = candidates
        if not key or len(key) > MAX_HEADER_LENGTH:
            raise Unauthorized()
        return cls(key=key)


class ApiKeyAuthentication(BaseAuthentication):
    """``authenticate`` returns ``(principal, principal)`` for an active key, None when no
    key header is present (the permission check then answers 401), and raises the one
    opaque ``Unauthorized`` problem for anything else: malformed, revoked, expired or
    unknown keys are indistinguishable (spec 5.2)."""

    def authenticate(self, request: Request) -> tuple[KeyPrincipal, KeyPrincipal] | None:
        """When the request's note says ``key_checked_by_meter`` (a metered view sets it
        before authentication), this worker's copy of the principal may be answered
        unchecked: the view's meter checks its epoch in the same round trip as the
        decision, or calls ``authenticate_again`` (see ``unchecked_epoch``)."""
        key = KeyHeaders.parse(request.META).key
        if key is None:
            return None
        notes = notes_of(request)
        deferred = notes.key_checked_by_meter
        found = principal_get(secret=key, verify=not deferred)
        if found is None:
            # Revoked, expired or unknown alike: the digest (the same keyed hash for any
            # well-formed secret) lets the usage log find a revoked or expired key later,
            # off this request's path (metering/outcomes.py).
            if secrets.is_well_formed(key):
                notes.refused_digest = secrets.digest(key, pepper=settings.KEY_PEPPER)
            raise Unauthorized()
        principal, epoch = found
        if not principal_allows_address(
            principal, request.META, proxies=settings.TRUSTED_PROXY_COUNT
        ):
            notes.refused_key = (principal.key_id, principal.account_id)
            raise Unauthorized()  # issue 29.3: as an unknown key, and never metered
        notes.principal = principal
        notes.key_epoch = epoch if deferred else None  # still to be checked, by the meter
        return principal, principal

    def authenticate_header(self, request: Request) -> str:
        """The ``WWW-Authenticate`` of a 401: DRF answers 401 (not 403) because this
        returns a value."""
        return 'Bearer realm="foodservice"'


def unchecked_epoch(request: Request) -> str | None:
    """The account epoch of a principal answered unchecked, which the caller must check
    (in the metering script) or re-authenticate (``authenticate_again``); else None."""
    return notes_of(request).key_epoch


def authenticate_again(request: Request) -> tuple[KeyPrincipal, str | None]:
    """The request's principal read again and checked current, with its epoch, now the
    request's ``user`` and ``auth``; raises ``Unauthorized`` when the key no longer
    authenticates (revoked, rotated away, expired)."""
    key = KeyHeaders.parse(request.META).key
    found = None if key is None else principal_get(secret=key)
    if found is None or not principal_allows_address(
        found[0], request.META, proxies=settings.TRUSTED_PROXY_COUNT
    ):
        request.user = request.auth = None
        notes_of(request).principal = None
        raise Unauthorized()
    principal, epoch = found
    request.user = request.auth = principal
    notes = notes_of(request)
    notes.principal, notes.key_epoch = principal, None
    return principal, epoch
