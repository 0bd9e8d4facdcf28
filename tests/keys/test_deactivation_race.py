"""Deactivation by a ``save()`` outside a transaction stops the keys on every worker from
the next request (issue 24.2): real gunicorn workers serve the key from several threads
while the owner is deactivated, and the gap between the invalidation and the row write
is widened so that the workers surely read the row inside it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.db.models.signals import pre_save

from accounts.services import account_set_tier
from keys.services import key_create
from tests.factories import AccountFactory
from tests.support.servers import fetch, gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]

GAP_SECONDS = 0.6  # between the first invalidation (pre_save) and the row write


def stream(base: str, secret: str, stop: threading.Event) -> None:
    while not stop.is_set():
        fetch(f"{base}/v1/market", {"X-API-Key": secret})


@pytest.fixture
def widened_gap() -> Iterator[None]:
    """A pre_save receiver connected after keys.signals' own: it runs once the first
    invalidation is written and holds the row write back, as a slow save would."""

    def hold(sender: Any, instance: Any, **_: Any) -> None:
        if not instance.is_active:
            time.sleep(GAP_SECONDS)

    pre_save.connect(hold, sender=settings.AUTH_USER_MODEL, dispatch_uid="test-gap")
    yield
    pre_save.disconnect(sender=settings.AUTH_USER_MODEL, dispatch_uid="test-gap")


def test_a_save_outside_a_transaction_stops_the_keys_on_every_worker(widened_gap):
    account = AccountFactory()
    account_set_tier(account=account, tier="head_chef")  # no burst limit
    _, secret = key_create(account=account, label="streamed")
    with gunicorn(workers=2, threads=4) as base:
        assert fetch(f"{base}/v1/market", {"X-API-Key": secret})[0] == 200
        stop = threading.Event()
        streams = [threading.Thread(target=stream, args=(base, secret, stop)) for _ in range(6)]
        for thread in streams:
            thread.start()
        try:
            time.sleep(0.3)  # every worker thread holds a copy
            owner = account.owner
            owner.is_active = False
            assert connection.get_autocommit()  # a shell or a script: no atomic()
            owner.save()
            after = [fetch(f"{base}/v1/market", {"X-API-Key": secret})[0] for _ in range(24)]
        finally:
            stop.set()
            for thread in streams:
                thread.join()
    assert set(after) == {401}
