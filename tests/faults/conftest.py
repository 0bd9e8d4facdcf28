"""Helpers of the short fault checks (issue 7.6; the long forms are bench/scripts/fault_*.py).

- ``throwaway_redis``: a redis-server of the test's own on a free port (never the shared
  one), without persistence, so a restart starts empty (``tests/support/engines.py``'s).
- ``TcpProxy``: a byte pump between a server and PostgreSQL. ``cut()`` closes every
  connection and refuses new ones, as a PostgreSQL restart (``pg_ctl stop -m fast``) does
  to its clients; ``restore()`` lets them in again. The shared cluster is never touched.
- ``worker_pids``: the gunicorn workers serving a base URL started by this test process.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db.models import Sum

from accounts.services import account_set_tier
from accounts.tiers import TierLimits
from keys.services import key_create
from metering.models import KeyUsageHour
from tests.factories import AccountFactory, FoodFactory
from tests.support.engines import ThrowawayRedis
from tests.support.servers import fetch

FLUSH_SECONDS = "0.3"  # METER_FLUSH_SECONDS of the servers these tests start


@pytest.fixture
def throwaway_redis() -> Iterator[ThrowawayRedis]:
    redis = ThrowawayRedis()
    redis.start()
    yield redis
    redis.stop()


class TcpProxy:
    """127.0.0.1:<port> -> ``upstream``, one thread per connection pair."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.closed = False
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.up:
                client.close()  # the database is "down": connection closed at once
                continue
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.pairs.append((client, server))
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        try:
            while True:
                ready, _, _ = select.select([a, b], [], [], 0.5)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    peers[sock].sendall(data)
        except OSError:
            return
        finally:
            for sock in (a, b):
                with contextlib.suppress(OSError):
                    sock.close()

    def cut(self) -> None:
        """Every open connection is closed and new ones are refused."""
        self.up = False
        with self.lock:
            pairs, self.pairs = self.pairs, []
        for pair in pairs:
            for sock in pair:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                    sock.close()

    def restore(self) -> None:
        self.up = True

    def close(self) -> None:
        self.closed = True
        self.cut()
        self.listener.close()


def worker_pids(base: str) -> list[int]:
    """The workers of the gunicorn this process started on ``base``'s port."""
    port = base.rsplit(":", 1)[1]
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if (
            ppid == os.getpid()
            and b"gunicorn" in b" ".join(cmdline)
            and (f"127.0.0.1:{port}".encode() in cmdline)
        ):
            children = entry / "task" / entry.name / "children"
            return [int(p) for p in children.read_text().split()]
    return []


def wait_for(predicate, *, timeout: float = 15, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def history_total(account_id: int) -> int:
    total = KeyUsageHour.objects.filter(account_id=account_id).aggregate(n=Sum("count"))["n"]
    return total or 0


class Tenant:
    """A US account with three keys (revoked, rotated, kept during the fault), a quota
    of ``quota`` a rolling day and no burst limit, and one food to read."""

    def __init__(self, quota: int) -> None:
        account = AccountFactory(market="US")
        limits = TierLimits(quota=quota, window="day", rate=None, burst=None)
        self.account = account_set_tier(account=account, tier="executive_chef", custom=limits)
        made = [key_create(account=self.account, label=f"fault {i}") for i in range(3)]
        self.keys = [key for key, _ in made]
        self.secrets = [secret for _, secret in made]
        food = FoodFactory()  # market US
        self.path = f"/v1/foods/{food.public_id}"

    def read(self, base: str, secret: str | None = None) -> tuple[int, dict, bytes]:
        return fetch(base + self.path, {"X-API-Key": secret or self.secrets[2]})

    def usage(self, base: str) -> int:
        status, _, body = fetch(f"{base}/v1/usage", {"X-API-Key": self.secrets[2]})
        assert status == 200, body
        return json.loads(body)["data"]["request_count"]


def problem_type(result: tuple[int, dict, bytes]) -> str | int:
    status, _, body = result
    if status in (200, 304):
        return status
    try:
        return json.loads(body)["type"]
    except (ValueError, KeyError):
        return status
