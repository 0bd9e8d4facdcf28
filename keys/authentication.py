"""API key authentication for DRF (spec 5)."""

from __future__ import annotations

from dataclasses import dataclass

from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request

from foodservice.problems import Unauthorized
from keys.principal import KeyPrincipal
from keys.selectors import key_authenticate

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
        key = KeyHeaders.parse(request.META).key
        if key is None:
            return None
        principal = key_authenticate(secret=key)
        if principal is None:
            raise Unauthorized()
        return principal, principal

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="foodservice"'
