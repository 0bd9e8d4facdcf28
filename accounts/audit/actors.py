"""Who did something, and from where: the ``actor`` every audited service receives.

Adapters build one (``Actor.for_request`` in a view or the admin, ``Actor.operator`` in a
command) and pass it keyword-only; a service called without one records ``SYSTEM``. The
client address is the socket peer (``REMOTE_ADDR``), unless ``settings.TRUSTED_PROXY_COUNT``
says how many proxies of ours append to ``X-Forwarded-For``: then the address those
proxies saw. A value that is not an IP address is dropped, never stored.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import models
from django.http import HttpRequest

from core.clientaddr import claimed_address


class ActorKind(models.TextChoices):
    USER = "user", "Account owner"
    STAFF = "staff", "Staff (admin)"
    OPERATOR = "operator", "Operator command"
    API_KEY = "api_key", "API key"
    ANONYMOUS = "anonymous", "Not signed in"
    SYSTEM = "system", "System"


@dataclass(frozen=True, slots=True)
class Actor:
    """``kind`` of actor, the user behind it (if any), a readable ``label`` (an e-mail
    address, ``manage.py set_tier``, ``API key 12``) and the client ``address``."""

    kind: ActorKind
    label: str
    user_id: int | None = None
    address: str | None = None

    @classmethod
    def for_request(cls, request: HttpRequest, *, kind: ActorKind = ActorKind.USER) -> Actor:
        """The signed-in person of ``request``; ``kind=STAFF`` from the admin."""
        user = request.user
        return cls(kind=kind, label=user.email, user_id=user.pk, address=client_address(request))

    @classmethod
    def for_user(cls, user: Any, request: HttpRequest | None = None) -> Actor:
        """``user`` acting for themselves, from ``request`` when there is one (a sign-up,
        an e-mailed link), before or without a session."""
        return cls(
            kind=ActorKind.USER, label=user.email, user_id=user.pk, address=client_address(request)
        )

    @classmethod
    def for_api_key(cls, request: HttpRequest, *, key_id: int) -> Actor:
        address = client_address(request)
        return cls(kind=ActorKind.API_KEY, label=f"API key {key_id}", address=address)

    @classmethod
    def operator(cls, command: str) -> Actor:
        return cls(kind=ActorKind.OPERATOR, label=f"manage.py {command}")


SYSTEM = Actor(kind=ActorKind.SYSTEM, label="system")


def client_address(request: HttpRequest | None) -> str | None:
    """The client's IP address (module docstring), or None when unknown or not an IP."""
    if request is None:
        return None
    candidate = claimed_address(request.META, proxies=settings.TRUSTED_PROXY_COUNT)
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return None
