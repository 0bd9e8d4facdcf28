"""Sign-in helpers shared by the sign-in limit tests (issue 11.2) and the pages that
lead on from a refused sign-in (issue 29)."""

from __future__ import annotations

from django.test import Client

from tests.dashboard.conftest import PASSWORD

LIMIT = 10
REFUSED = "Too many failed sign-ins for this address. Wait 15 minutes"


def dashboard(client: Client, email: str, password: str = PASSWORD, **meta: str):
    return client.post("/login/", {"username": email, "password": password}, **meta)


def admin(client: Client, email: str, password: str = PASSWORD, **meta: str):
    return client.post("/admin/login/", {"username": email, "password": password}, **meta)


def fail(times: int, email: str, sign_in=dashboard, **meta: str) -> None:
    client = Client()
    for _ in range(times):
        assert sign_in(client, email, "wrong", **meta).status_code in (200, 429)
