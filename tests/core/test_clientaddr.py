"""The client address behind trusted proxies (issue 36.4): ``X-Forwarded-For`` is read
only on a connection from ``TRUSTED_PROXIES``, and each entry only when the proxy that
appended it is trusted, at most ``TRUSTED_PROXY_COUNT`` entries."""

from __future__ import annotations

import ipaddress

import pytest

from core.clientaddr import (
    claimed_address,
    client_address,
    is_trusted,
    parse_networks,
)

LOCAL = [ipaddress.ip_network("127.0.0.1/32"), ipaddress.ip_network("::1/128")]
PRIVATE = [ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("fd00::/8")]


def meta(remote: str, forwarded: str | None = None) -> dict[str, str]:
    found = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        found["HTTP_X_FORWARDED_FOR"] = forwarded
    return found


@pytest.mark.parametrize(
    ("remote", "forwarded", "proxies", "trusted", "expected"),
    [
        # A client that reaches gunicorn directly: its own address, whatever it claims.
        ("198.51.100.9", "203.0.113.7", 1, LOCAL, "198.51.100.9"),
        ("198.51.100.9", "203.0.113.7, 127.0.0.1", 2, LOCAL, "198.51.100.9"),
        # Through nginx on the same host: the entry nginx appended, nothing further left.
        ("127.0.0.1", "198.51.100.9", 1, LOCAL, "198.51.100.9"),
        ("127.0.0.1", "203.0.113.7, 198.51.100.9", 1, LOCAL, "198.51.100.9"),
        # A proxy inside a trusted range.
        ("10.20.30.40", "198.51.100.9", 1, PRIVATE, "198.51.100.9"),
        ("10.20.30.40", "198.51.100.9", 1, LOCAL, "10.20.30.40"),
        # Two proxies (load balancer in 10/8, then nginx): the balancer's entry counts...
        ("127.0.0.1", "203.0.113.7, 198.51.100.9, 10.0.0.5", 2, LOCAL + PRIVATE, "198.51.100.9"),
        # ...only when nginx's own peer is the balancer: a client that reaches nginx
        # directly, bypassing the balancer, is the address nginx saw.
        ("127.0.0.1", "203.0.113.7, 198.51.100.9", 2, LOCAL + PRIVATE, "198.51.100.9"),
        # Fewer entries than proxies: the last trusted proxy's peer.
        ("127.0.0.1", "10.0.0.5", 2, LOCAL + PRIVATE, "10.0.0.5"),
        # The count caps the walk even when an entry is itself a trusted address.
        ("127.0.0.1", "198.51.100.9, 10.0.0.5", 1, LOCAL + PRIVATE, "10.0.0.5"),
        # Nothing trusted, or no proxies counted: the header is ignored.
        ("127.0.0.1", "198.51.100.9", 1, [], "127.0.0.1"),
        ("127.0.0.1", "198.51.100.9", 0, LOCAL, "127.0.0.1"),
        # A trusted peer without the header, or with only blanks in it.
        ("127.0.0.1", None, 1, LOCAL, "127.0.0.1"),
        ("127.0.0.1", " , ,", 1, LOCAL, "127.0.0.1"),
        # Blanks and empty items around the entries are no entries.
        ("127.0.0.1", "203.0.113.7 ,, 198.51.100.9 , ", 1, LOCAL, "198.51.100.9"),
        # IPv6: a trusted ::1, a trusted fd00::/8 range, a dual-stack socket's mapped
        # IPv4 peer, an untrusted IPv6 peer.
        ("::1", "2001:db8:1:2::9", 1, LOCAL, "2001:db8:1:2::9"),
        ("fd00::17", "198.51.100.9", 1, PRIVATE, "198.51.100.9"),
        ("::ffff:127.0.0.1", "198.51.100.9", 1, LOCAL, "198.51.100.9"),
        ("2001:db8::66", "198.51.100.9", 1, LOCAL + PRIVATE, "2001:db8::66"),
        # Garbage: a peer that is no address is never trusted; an entry that is none
        # ends the walk and is handed on as it is (unknown to every caller).
        ("unix:", "198.51.100.9", 1, LOCAL, "unix:"),
        ("", "198.51.100.9", 1, LOCAL, ""),
        ("127.0.0.1", "not-an-ip", 1, LOCAL, "not-an-ip"),
        ("127.0.0.1", "198.51.100.9, 10.0.0.5:443", 2, LOCAL + PRIVATE, "10.0.0.5:443"),
    ],
)
def test_claimed_address(remote, forwarded, proxies, trusted, expected):
    assert claimed_address(meta(remote, forwarded), proxies=proxies, trusted=trusted) == expected


@pytest.mark.parametrize(
    ("remote", "forwarded", "expected"),
    [
        ("198.51.100.9", "203.0.113.7", "198.51.100.9"),  # untrusted peer
        ("127.0.0.1", "203.0.113.7", "203.0.113.7"),
        ("127.0.0.1", "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),  # a subscriber's /64
        ("127.0.0.1", "::ffff:198.51.100.9", "198.51.100.9"),
        ("127.0.0.1", "not-an-ip", "127.0.0.1"),  # garbage: the socket, counted apart
        ("127.0.0.1", "203.0.113.7\x00", "127.0.0.1"),
        ("", "203.0.113.7", "unknown"),
        ("not-an-ip", None, "unknown"),
    ],
)
def test_client_address_is_always_a_plain_address(remote, forwarded, expected):
    assert client_address(meta(remote, forwarded), proxies=1, trusted=LOCAL) == expected


def test_trusted_proxies_default_to_the_settings(settings):
    request = meta("10.1.1.1", "198.51.100.9")
    settings.TRUSTED_PROXIES = []
    assert claimed_address(request, proxies=1) == "10.1.1.1"
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    assert claimed_address(request, proxies=1) == "198.51.100.9"
    assert client_address(request, proxies=1) == "198.51.100.9"


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", False),
        ("::ffff:127.0.0.1", True),
        ("10.255.0.1", True),
        ("fd12::1", True),
        ("fe80::1", False),
        ("127.0.0.1/32", False),  # a network is not an address
        ("", False),
        ("localhost", False),
    ],
)
def test_is_trusted(address, expected):
    assert is_trusted(address, LOCAL + PRIVATE) is expected


def test_parse_networks_normalises_and_drops_duplicates():
    assert parse_networks("127.0.0.1, ::1 10.0.0.0/8,127.0.0.1/32  fd00::/8") == [
        "127.0.0.1/32",
        "::1/128",
        "10.0.0.0/8",
        "fd00::/8",
    ]
    assert parse_networks("") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nginx", "'nginx' is not an IP address"),
        ("10.0.0.1/8", "'10.0.0.1/8' is not"),  # host bits set: most likely a typo
        ("127.0.0.1;10.0.0.1", "is not an IP address"),
        ("*", "would trust X-Forwarded-For from anyone"),
        ("0.0.0.0/33", "is not"),
    ],
)
def test_parse_networks_refuses_what_is_no_network(text, message):
    with pytest.raises(ValueError, match=message):
        parse_networks(text)
