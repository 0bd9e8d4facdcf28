"""The client's address, trusting ``X-Forwarded-For`` only from our own proxies.

Two settings (from the environment) describe the proxies in front of the service:

- ``TRUSTED_PROXIES``: the addresses or CIDR ranges our reverse proxies connect from;
- ``TRUSTED_PROXY_COUNT``: how many of them a request passes through, so at most how
  many entries of ``X-Forwarded-For`` (each proxy appends the address it received the
  request from) are peeled off, right to left.

An entry is believed only when the party that appended it is a trusted proxy: the first
(rightmost) only when the connection itself (``REMOTE_ADDR``) comes from one, the next
only when the first names one, and so on, up to ``TRUSTED_PROXY_COUNT`` entries. A
client that reaches gunicorn (or an outer proxy) directly is therefore its own socket
address whatever it writes in the header; anything further left than the proxies'
entries was written by the client and is never read. With either setting empty or 0
the header is ignored entirely (the default). ``foodservice/ops/checks.py`` refuses a count
without any trusted proxy (the header would be ignored, silently).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from django.conf import settings

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def client_address(
    meta: Mapping[str, object], *, proxies: int, trusted: Sequence[Network] | None = None
) -> str:
    """The client's address from a WSGI environ (``claimed_address``), parsed. An IPv6
    address is widened to its /64 (one subscriber's usual allocation). Anything
    unparsable falls back to ``REMOTE_ADDR``, then to ``"unknown"``; the result is always
    a plain address or network."""
    remote = str(meta.get("REMOTE_ADDR") or "")
    for value in (claimed_address(meta, proxies=proxies, trusted=trusted), remote):
        address = _parse(value)
        if address is not None:
            return address
    return "unknown"


def claimed_address(
    meta: Mapping[str, object], *, proxies: int, trusted: Sequence[Network] | None = None
) -> str:
    """The address as given, unparsed: ``REMOTE_ADDR``, or the leftmost entry of
    ``X-Forwarded-For`` appended by a trusted proxy (module docstring), peeling at most
    ``proxies`` entries. ``trusted`` defaults to ``settings.TRUSTED_PROXIES``. An entry
    that is not an IP address ends the walk and is returned as it is (callers treat it
    as unknown: a key with allowed addresses refuses it)."""
    networks = trusted_networks() if trusted is None else trusted
    address = str(meta.get("REMOTE_ADDR") or "")
    if proxies <= 0 or not networks:
        return address
    hops = [h.strip() for h in str(meta.get("HTTP_X_FORWARDED_FOR") or "").split(",")]
    hops = [h for h in hops if h]
    for _ in range(proxies):
        if not hops or not is_trusted(address, networks):
            break
        address = hops.pop()
    return address


def is_trusted(address: str, networks: Iterable[Network]) -> bool:
    """Whether ``address`` (a plain IP address; anything else is not) lies in one of
    ``networks``. An IPv4-mapped IPv6 address (a dual-stack socket's ``::ffff:10.0.0.2``)
    counts as its IPv4 address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in network for network in networks)


def parse_networks(text: str) -> list[str]:
    """The normalised networks of ``text``: addresses or CIDR ranges, IPv4 or IPv6,
    separated by commas or spaces (``127.0.0.1``, ``10.0.0.0/8``, ``fd00::/8``); a lone
    address becomes a /32 or /128. Raises ``ValueError`` naming the first item that is
    none (host bits set in a range included: ``10.0.0.1/8`` is most likely a typo), and
    for ``*``: trusting every peer is what lets a client choose its own address."""
    found: list[str] = []
    for item in text.replace(",", " ").split():
        if item == "*":
            raise ValueError(
                "'*' would trust X-Forwarded-For from anyone; name the proxies' addresses"
            )
        try:
            network = str(ipaddress.ip_network(item, strict=True))
        except ValueError:
            raise ValueError(f"{item!r} is not an IP address or a CIDR range") from None
        if network not in found:
            found.append(network)
    return found


def trusted_networks() -> tuple[Network, ...]:
    """``settings.TRUSTED_PROXIES`` as network objects (parsed once per value)."""
    return _networks(tuple(settings.TRUSTED_PROXIES))


@lru_cache(maxsize=8)
def _networks(items: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(item) for item in parse_networks(" ".join(items)))


def _parse(value: str) -> str | None:
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)
