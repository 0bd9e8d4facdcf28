"""The client's address, trusting ``X-Forwarded-For`` only behind known proxies.

``TRUSTED_PROXY_COUNT`` (settings, from the environment) is how many reverse proxies
append to ``X-Forwarded-For`` in front of the service. Each appends the address it
received the request from, so with N proxies the client is the N-th entry from the
right; anything further left was sent by the client and is ignored. With 0 (the
default) the header is ignored entirely: a client could otherwise claim any address.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping


def client_address(meta: Mapping[str, object], *, proxies: int) -> str:
    """The client's address from a WSGI environ: ``REMOTE_ADDR``, or with ``proxies`` > 0
    the address the outermost trusted proxy saw. An IPv6 address is widened to its /64
    (one subscriber's usual allocation). Anything unparsable falls back to
    ``REMOTE_ADDR``, then to ``"unknown"``; the result is always a plain address."""
    remote = str(meta.get("REMOTE_ADDR") or "")
    for value in (claimed_address(meta, proxies=proxies), remote):
        address = _parse(value)
        if address is not None:
            return address
    return "unknown"


def claimed_address(meta: Mapping[str, object], *, proxies: int) -> str:
    """The address as given, unparsed: ``REMOTE_ADDR``, or with ``proxies`` > 0 the entry
    of ``X-Forwarded-For`` the outermost trusted proxy appended (``REMOTE_ADDR`` when the
    header holds fewer entries)."""
    remote = str(meta.get("REMOTE_ADDR") or "")
    if proxies > 0:
        hops = [h.strip() for h in str(meta.get("HTTP_X_FORWARDED_FOR") or "").split(",")]
        hops = [h for h in hops if h]
        if len(hops) >= proxies:
            return hops[-proxies]
    return remote


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
