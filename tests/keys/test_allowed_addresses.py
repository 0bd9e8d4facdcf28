"""Allowed addresses per key (issue 29.3): a request from elsewhere is refused as an
unknown key is (the same opaque 401, not counted), the address read behind
``TRUSTED_PROXY_COUNT`` proxies as the sign-in limit reads it; changes are audited."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from keys import secrets
from keys.policies import AddressListError, address_allowed, parse_allowed_addresses
from keys.services import key_set_allowed_addresses
from metering.history import usage_flush
from metering.models import KeyUsageHour

pytestmark = pytest.mark.django_db

UNKNOWN = secrets.generate()  # well formed, never issued


def call(secret: str, path: str = "/v1/foods?q=apple", **meta: str):
    return APIClient().get(path, headers={"X-API-Key": secret}, **meta)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("203.0.113.7", ["203.0.113.7/32"]),
        ("198.51.100.0/24, 203.0.113.7\n2001:db8::/32",
         ["198.51.100.0/24", "203.0.113.7/32", "2001:db8::/32"]),
        ("10.0.0.0/8 10.0.0.0/8", ["10.0.0.0/8"]),
    ],
)  # fmt: skip
def test_lists_are_parsed_and_normalised(text, expected):
    assert parse_allowed_addresses(text) == expected


@pytest.mark.parametrize("text", ["example.com", "10.0.0.1/8", "300.1.1.1", "1.2.3.4/33", "x" * 90])
def test_anything_else_is_refused_with_a_reason(text):
    with pytest.raises(AddressListError):
        parse_allowed_addresses(text)


def test_at_most_twenty():
    with pytest.raises(AddressListError, match="At most 20"):
        parse_allowed_addresses(" ".join(f"10.0.0.{i}" for i in range(21)))


@pytest.mark.parametrize(
    ("client", "allowed"),
    [("198.51.100.9", True), ("198.51.100.300", False), ("203.0.113.8", False),
     ("::ffff:198.51.100.9", True), ("2001:db8::1", True), ("2001:db9::1", False),
     ("unknown", False), ("", False)],
)  # fmt: skip
def test_membership(client, allowed):
    assert address_allowed(["198.51.100.0/24", "2001:db8::/32"], client) is allowed


def test_a_request_from_elsewhere_is_refused_like_an_unknown_key_and_not_counted(
    key_and_secret, clock
):
    key, secret = key_and_secret
    key_set_allowed_addresses(key=key, addresses=["198.51.100.0/24"])
    inside = call(secret, REMOTE_ADDR="198.51.100.20")
    assert inside.status_code == 200
    outside = call(secret, REMOTE_ADDR="203.0.113.5")
    unknown = call(UNKNOWN, REMOTE_ADDR="203.0.113.5")
    assert outside.status_code == unknown.status_code == 401
    assert outside.json() == unknown.json()
    assert outside["WWW-Authenticate"] == unknown["WWW-Authenticate"]
    assert not any(h.startswith("RateLimit") for h in outside.headers)
    for path in ("/v1/usage", "/v1/usage/history", "/v1/market"):  # unmetered ones too
        assert call(secret, path, REMOTE_ADDR="203.0.113.5").status_code == 401
    usage_flush()
    assert sum(KeyUsageHour.objects.values_list("count", flat=True)) == 1
    used = call(secret, "/v1/usage", REMOTE_ADDR="198.51.100.20").json()["data"]
    assert used["request_count"] == 1


def test_an_emptied_list_allows_any_address_again_at_once(key_and_secret, clock):
    key, secret = key_and_secret
    assert call(secret, "/v1/market", REMOTE_ADDR="203.0.113.5").status_code == 200  # cached
    key_set_allowed_addresses(key=key, addresses=["198.51.100.0/24"])
    assert call(secret, "/v1/market", REMOTE_ADDR="203.0.113.5").status_code == 401
    key_set_allowed_addresses(key=key, addresses=[])
    assert call(secret, "/v1/market", REMOTE_ADDR="203.0.113.5").status_code == 200


def test_without_trusted_proxies_x_forwarded_for_is_ignored(key_and_secret, settings):
    settings.TRUSTED_PROXY_COUNT = 0
    key, secret = key_and_secret
    key_set_allowed_addresses(key=key, addresses=["198.51.100.7/32"])
    forged = call(
        secret, "/v1/market", REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_FOR="198.51.100.7"
    )
    assert forged.status_code == 401


def test_behind_two_trusted_proxies_the_outer_proxys_entry_counts(key_and_secret, settings):
    settings.TRUSTED_PROXY_COUNT = 2
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]  # both proxies connect from 10/8
    key, secret = key_and_secret
    key_set_allowed_addresses(key=key, addresses=["198.51.100.7/32"])
    # client-claimed, the client as the outer proxy saw it, the outer proxy itself
    meta = {"REMOTE_ADDR": "10.0.0.2"}
    good = "203.0.113.99, 198.51.100.7, 10.0.0.1"
    assert call(secret, "/v1/market", HTTP_X_FORWARDED_FOR=good, **meta).status_code == 200
    spoofed = "198.51.100.7, 203.0.113.5, 10.0.0.1"  # the claim further left is ignored
    assert call(secret, "/v1/market", HTTP_X_FORWARDED_FOR=spoofed, **meta).status_code == 401
