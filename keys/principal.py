"""What an authenticated request knows about its key and account."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from accounts.tiers import TierLimits


@dataclass(frozen=True, slots=True)
class KeyPrincipal:
    """The key and account behind a request: ``request.user`` and ``request.auth`` of
    every authenticated API request. Built from the database, cached in the shared key
    cache, and dropped from it whenever the key or its account changes."""

    key_id: int
    account_id: int
    tier: str
    limits: TierLimits
    market: str
    billing_anchor: datetime | None
    expires_at: datetime | None
    # Issue 29.3: normalised networks the key may be used from; empty: any address.
    allowed_addresses: tuple[str, ...] = ()

    # DRF's IsAuthenticated reads request.user.is_authenticated.
    is_authenticated = True

    def expired_at(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now

    def allowed_networks(self) -> tuple[str, ...]:
        """``allowed_addresses``; also for a copy cached before the field existed."""
        return getattr(self, "allowed_addresses", ())
