"""System checks for the proxy settings (``manage.py check``, which ``make serve-prod``
runs first, and ``migrate``): a configuration that would silently read the wrong
client address fails here instead (issue 36.4)."""

from __future__ import annotations

import ipaddress
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning, register

from core.clientaddr import parse_networks

_HINT = (
    "Set TRUSTED_PROXIES to the addresses or CIDR ranges the proxies connect from: "
    "127.0.0.1 for nginx on the same host (deploy/nginx.conf.template), plus the load "
    "balancer's range when it is in front of nginx (docs/operations.md, 'Slow clients "
    "and the proxy')."
)


@register()
def proxy_settings(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    count = settings.TRUSTED_PROXY_COUNT
    try:
        networks = [
            ipaddress.ip_network(n) for n in parse_networks(" ".join(settings.TRUSTED_PROXIES))
        ]
    except ValueError as exc:
        return [Error(f"TRUSTED_PROXIES: {exc}.", id="foodservice.E003")]
    if count < 0:
        return [Error("TRUSTED_PROXY_COUNT must be 0 or more.", id="foodservice.E002")]
    if count > 0 and not networks:
        return [
            Error(
                f"TRUSTED_PROXY_COUNT={count} without TRUSTED_PROXIES: X-Forwarded-For is "
                "read only from a connection that comes from a trusted proxy, so it is "
                "ignored and every client gets the proxy's address.",
                hint=_HINT,
                id="foodservice.E001",
            )
        ]
    if networks and count == 0:
        return [
            Warning(
                "TRUSTED_PROXIES is set but TRUSTED_PROXY_COUNT is 0: X-Forwarded-For is ignored.",
                hint="Set TRUSTED_PROXY_COUNT to the number of proxies in front of the "
                "service (1 for nginx alone).",
                id="foodservice.W001",
            )
        ]
    if count > 1 and all(n.is_loopback for n in networks):
        return [
            Warning(
                f"TRUSTED_PROXY_COUNT={count} but TRUSTED_PROXIES names only loopback "
                "addresses: the entry an outer proxy appends is read only when nginx's "
                "peer is a trusted proxy, so every client would get the outer proxy's "
                "address.",
                hint=_HINT,
                id="foodservice.W002",
            )
        ]
    return []
