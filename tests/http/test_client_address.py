"""A client cannot choose its address by writing ``X-Forwarded-For`` (issue 36.4).

gunicorn (from gunicorn.conf.py, as ``make serve-prod`` runs it) with
``TRUSTED_PROXY_COUNT=1`` and ``TRUSTED_PROXIES=127.0.0.1``, and nginx from
``deploy/nginx.conf.template`` in front of it: nginx connects from 127.0.0.1, and the
tests connect from other loopback addresses (127.0.0.2, ...), either straight to gunicorn
(as a client would that found its port open) or through nginx. A key's allowed
addresses and the sign-in lockout see the connecting address straight to gunicorn, and
the address nginx appended through nginx, whatever the client wrote in the header.
"""

from __future__ import annotations

import http.client
from collections.abc import Iterator

import pytest

from keys.services import key_create, key_set_allowed_addresses
from tests.factories import AccountFactory
from tests.support.servers import gunicorn, nginx

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]

ALLOWED = "127.0.0.3"  # the only address the key of these tests may be used from
CSRF = "c" * 32  # a CSRF secret of our own: cookie and form field agree


@pytest.fixture(scope="module")
def upstream(django_db_setup: None, django_db_blocker: object) -> Iterator[str]:
    with gunicorn(
        workers=1, threads=2, config=True, TRUSTED_PROXY_COUNT="1", TRUSTED_PROXIES="127.0.0.1"
    ) as base:
        yield base


@pytest.fixture(scope="module")
def proxied(upstream: str) -> Iterator[str]:
    with nginx(upstream) as base:
        yield base


def send(
    base: str, source: str, method: str, path: str, body: str = "", **headers: str
) -> tuple[int, bytes]:
    """``method path`` to ``base`` over a connection from the address ``source``."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(source, 0))
    try:
        connection.request(method, path, body=body or None, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def market(base: str, source: str, secret: str, **headers: str) -> int:
    return send(base, source, "GET", "/v1/market", **{"X-API-Key": secret, **headers})[0]


def wrong_password(base: str, source: str, email: str, **headers: str) -> int:
    """A dashboard sign-in with a wrong password: 200 (the form again) or 429 (refused)."""
    body = f"username={email}&password=wrong&csrfmiddlewaretoken={CSRF}"
    return send(
        base, source, "POST", "/login/", body,
        **{"Content-Type": "application/x-www-form-urlencoded", "Cookie": f"csrftoken={CSRF}",
           **headers},
    )[0]  # fmt: skip


@pytest.fixture
def secret() -> str:
    key, raw = key_create(account=AccountFactory(market="US"), label="allowed")
    key_set_allowed_addresses(key=key, addresses=[f"{ALLOWED}/32"])
    return raw


def test_straight_to_gunicorn_a_forged_header_does_not_unlock_a_key(upstream, secret):
    spoofs = [ALLOWED, f"203.0.113.7, {ALLOWED}", f"{ALLOWED}, 127.0.0.1", "127.0.0.1"]
    assert [market(upstream, "127.0.0.2", secret, **{"X-Forwarded-For": s}) for s in spoofs] == [
        401
    ] * len(spoofs)
    assert market(upstream, ALLOWED, secret) == 200  # the connection itself counts


def test_through_nginx_the_address_nginx_saw_counts(proxied, secret):
    # gunicorn sees every request from nginx's 127.0.0.1: a 200 proves nginx's entry
    # was read, a 401 that the client's own entries were not.
    assert market(proxied, ALLOWED, secret) == 200
    assert market(proxied, ALLOWED, secret, **{"X-Forwarded-For": "203.0.113.7"}) == 200
    assert market(proxied, "127.0.0.2", secret, **{"X-Forwarded-For": ALLOWED}) == 401


@pytest.mark.parametrize(("via", "source"), [("upstream", "127.0.0.4"), ("proxied", "127.0.0.5")])
def test_a_new_forged_header_per_try_does_not_escape_the_sign_in_lockout(request, via, source):
    base = request.getfixturevalue(via)
    email = f"victim-{via}@example.com"
    answers = [
        wrong_password(base, source, email, **{"X-Forwarded-For": f"198.51.100.{n}"})
        for n in range(12)
    ]
    assert answers == [200] * 10 + [429] * 2  # 10 failures per (address, client)
    # Another client is counted apart: through nginx, although gunicorn sees the same
    # peer (127.0.0.1) for both, so the lockout follows nginx's entry.
    assert wrong_password(base, "127.0.0.6", email) == 200
