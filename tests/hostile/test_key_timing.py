"""No timing oracle in the 401 (issue 7.8): an unknown well-formed key and a revoked key
take the same path, the same SQL and the same cache operations, so nothing but noise can
tell them apart. (The statistical timing check is bench/scripts/timing_401.py, results in
bench/RESULTS.md, "Timing": speed is measured there, never asserted here.)"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterator

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from keys import secrets
from keys.models import ApiKey
from keys.services import key_create, key_revoke
from tests.support.keys import principal_of


@pytest.fixture
def cache_calls(monkeypatch) -> Iterator[Counter]:
    """Counts every call on the ``keys`` cache (calls go through to the real cache)."""
    calls: Counter = Counter()
    cache = caches["keys"]
    for name in ("get", "get_many", "add", "set", "set_many", "delete", "delete_many"):
        real = getattr(cache, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(cache, name, spy)
    yield calls


def trace(secret: str, calls: Counter) -> tuple[list[str], dict[str, int]]:
    """The SQL (with the key's digest and the clock blanked) and cache calls of one try."""
    calls.clear()
    with CaptureQueriesContext(connection) as queries:
        assert principal_of(secret) is None
    sql = [re.sub(r"'[^']*'", "?", q["sql"]) for q in queries]  # literals: digest, now
    return sql, dict(calls)


def test_unknown_and_revoked_keys_take_the_same_path(account, cache_calls, clock):
    key, revoked = key_create(account=account, label="soon revoked")
    key_revoke(key=key)
    unknown = secrets.generate()

    revoked_trace = trace(revoked, cache_calls)
    unknown_trace = trace(unknown, cache_calls)
    assert revoked_trace == unknown_trace
    assert len(revoked_trace[0]) == 1  # one indexed query, filtered: no row either way


def test_a_revoked_key_long_after_revocation_takes_the_same_path(account, cache_calls, clock):
    key, revoked = key_create(account=account, label="old")
    key_revoke(key=key)
    clock.shift(3600)  # the tombstone has expired
    caches["keys"].clear()
    assert trace(revoked, cache_calls) == trace(secrets.generate(), cache_calls)


def test_a_key_that_expired_while_cached_takes_the_unknown_key_path(account, cache_calls, clock):
    key, secret = key_create(account=account, label="expiring")
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() + dt.timedelta(minutes=1))
    caches["keys"].clear()
    assert principal_of(secret) is not None  # in use, so cached (with Redis)
    clock.shift(120)  # expired now, still in the 5-minute cache
    assert trace(secret, cache_calls) == trace(secrets.generate(), cache_calls)
