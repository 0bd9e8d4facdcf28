"""Pure rules about keys (issue 29): when an expiring key's owner is told, and whether a
request's address may use a key. No I/O; the time and the address are passed in.

``keys.authentication`` calls ``address_allowed`` in one line; the expiry itself is
enforced where every key is read (``ApiKey.objects.active``, ``KeyPrincipal.expired_at``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from core.clientaddr import claimed_address, is_trusted
from keys.principal import KeyPrincipal

# Reminder e-mails, in days before the expiry; 0 is the expiry itself (audited).
EXPIRY_STAGES = (7, 1, 0)
MAX_ALLOWED_ADDRESSES = 20

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def expiry_stage(expires_at: datetime, now: datetime) -> int | None:
    """The stage due at ``now`` for a key expiring at ``expires_at``: 0 once expired, 1
    in its last day, 7 in its last week, None before. Only the latest stage is due: a
    key created 3 days before its expiry never gets the 7-day e-mail."""
    for stage in sorted(EXPIRY_STAGES):
        if now >= expires_at - timedelta(days=stage):
            return stage
    return None


class AddressListError(ValueError):
    """An allowed-address list that cannot be used; the message says why."""


def parse_allowed_addresses(text: str) -> list[str]:
    """The normalised networks of ``text``: addresses or CIDR ranges, IPv4 or IPv6,
    separated by commas, spaces or new lines (``203.0.113.7``, ``198.51.100.0/24``,
    ``2001:db8::/32``); a lone address becomes a /32 or /128. Duplicates are dropped,
    the order kept. Raises ``AddressListError`` for anything else, host bits set in a
    range included (``10.0.0.1/8`` is most likely a typo)."""
    found: list[str] = []
    bad: list[str] = []  # every entry at fault is named, not only the first (issue 40.8)
    for item in text.replace(",", " ").split():
        if len(item) > 64:
            bad.append(f"“{item[:64]}…”")
            continue
        try:
            network = ipaddress.ip_network(item, strict=True)
        except ValueError:
            bad.append(f"“{item}”")
            continue
        if str(network) not in found:
            found.append(str(network))
    if bad:
        raise AddressListError(_not_addresses(bad))
    if len(found) > MAX_ALLOWED_ADDRESSES:
        raise AddressListError(f"At most {MAX_ALLOWED_ADDRESSES} addresses or ranges.")
    return found


# At most this many bad entries are quoted in one message (the rest are counted).
NAMED_BAD = 10


def _not_addresses(bad: list[str]) -> str:
    if len(bad) == 1:
        return f"{bad[0]} is not an IP address or a CIDR range (like 198.51.100.0/24)."
    named = bad[:NAMED_BAD]
    rest = len(bad) - len(named)
    listed = ", ".join(named[:-1]) + (f", {named[-1]}" if rest else f" and {named[-1]}")
    more = f" and {rest} more" if rest else ""
    return f"{listed}{more} are not IP addresses or CIDR ranges (like 198.51.100.0/24)."


def address_allowed(allowed: Sequence[str], client: str | None) -> bool:
    """Whether a request from ``client`` may use a key limited to ``allowed``: always
    when the list is empty; else only a known address inside one of the networks (an
    IPv4-mapped IPv6 address counts as its IPv4 one)."""
    if not allowed:
        return True
    return bool(client) and is_trusted(client, (ipaddress.ip_network(n) for n in allowed))


def principal_allows_address(
    principal: KeyPrincipal, meta: Mapping[str, object], *, proxies: int
) -> bool:
    """Whether the request with WSGI environ ``meta`` may use ``principal``'s key from
    where it comes: its address is ``REMOTE_ADDR``, or behind ``proxies`` trusted
    proxies (``TRUSTED_PROXY_COUNT``) the entry the outermost one appended to
    ``X-Forwarded-For``, exactly as given (never widened to a /64)."""
    allowed = principal.allowed_networks()
    return not allowed or address_allowed(allowed, claimed_address(meta, proxies=proxies))
