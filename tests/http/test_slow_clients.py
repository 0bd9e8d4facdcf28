"""Slow clients cannot stop the service (issue 24.3): behind nginx from
``deploy/nginx.conf.template``, 200 connections that send a partial header and then one
byte every second are held while ordinary requests are answered; straight to gunicorn
(whose gthread workers read headers on a blocking socket in a thread) the same slow
clients starve it, which is why production runs the proxy."""

from __future__ import annotations

import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import pytest

from keys.services import key_create
from tests.factories import AccountFactory
from tests.support.servers import gunicorn, nginx

# What gunicorn and nginx answer, before any backend is read: the embedded pass only.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server, pytest.mark.http_edge]

SLOW = 200
HOLD_SECONDS = 6  # under nginx's client_header_timeout (10 s)


@contextmanager
def slow_clients(base: str, count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections, each with a partial header, one more byte every second."""
    host, port = base.removeprefix("http://").split(":")
    sockets = []
    for _ in range(count):
        sock = socket.create_connection((host, int(port)), timeout=5)
        sock.sendall(b"GET /v1/market HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        sockets.append(sock)
    stop = threading.Event()

    def drip() -> None:
        while not stop.wait(1.0):
            for sock in sockets:
                with suppress(OSError):
                    sock.sendall(b"a")

    dripper = threading.Thread(target=drip)
    dripper.start()
    try:
        yield sockets
    finally:
        stop.set()
        dripper.join()
        for sock in sockets:
            sock.close()


def ordinary(base: str, secret: str, timeout: float) -> int | None:
    """An ordinary request's status, or None when no answer came within ``timeout``."""
    request = urllib.request.Request(f"{base}/v1/market", headers={"X-API-Key": secret})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def still_open(sockets: list[socket.socket]) -> int:
    """How many slow connections the server has not closed."""
    open_ = 0
    for sock in sockets:
        sock.setblocking(False)
        try:
            open_ += sock.recv(1) != b""  # data would be an answer: the server gave up
        except BlockingIOError:
            open_ += 1
        except OSError:
            pass
    return open_


def test_200_slow_clients_behind_nginx_do_not_stop_ordinary_requests():
    _, secret = key_create(account=AccountFactory(market="US"), label="ordinary")
    with gunicorn(workers=1, threads=2, config=True) as upstream, nginx(upstream) as base:
        assert ordinary(base, secret, timeout=5) == 200
        with slow_clients(base, SLOW) as sockets:
            time.sleep(1.5)
            answered = []
            # No request may start that could still run past the hold (its 3 s timeout
            # included): on a loaded machine the last one ran on past nginx's 10 s
            # client_header_timeout, which then closed the slow connections as it should.
            deadline = time.monotonic() + HOLD_SECONDS
            while time.monotonic() + 3 < deadline:
                answered.append(ordinary(base, secret, timeout=3))
            assert still_open(sockets) == SLOW
        assert len(answered) >= 10 and set(answered) == {200}, answered


def test_the_same_slow_clients_starve_gunicorn_alone():
    """The reason for the proxy: without it, a few slow clients hold every thread."""
    _, secret = key_create(account=AccountFactory(market="US"), label="ordinary")
    with gunicorn(workers=1, threads=2, config=True) as base:
        assert ordinary(base, secret, timeout=5) == 200
        with slow_clients(base, 20):
            time.sleep(1.5)
            assert ordinary(base, secret, timeout=3) is None
