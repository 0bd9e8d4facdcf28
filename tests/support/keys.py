"""Key look-ups as the request path does them."""

from __future__ import annotations

from keys.principal import KeyPrincipal
from keys.selectors import principal_get


def principal_of(secret: str) -> KeyPrincipal | None:
    """The principal ``secret`` authenticates as, through the same look-up (caches,
    epoch check) as ``ApiKeyAuthentication``; None when it authenticates as nobody."""
    found = principal_get(secret=secret)
    return None if found is None else found[0]
