"""The meter's store restarts mid-traffic (issue 7.6; the long form is
bench/scripts/fault_redis_restart.py).

PostgreSQL + Redis pass: gunicorn (2 workers) on a throwaway redis-server of the test's
own (never the shared one), killed and started again empty. Embedded pass: there is no
Redis, so the same code paths run in a threaded server in this process: "down" puts a
Redis meter pointed at a closed port in place of the in-process one (the meter's
connection is refused, exactly as when Redis is down), "back, empty" drops the
in-process meter, as a restart would.

Expected either way (docs/metering.md, "Redis and failures"): metered reads answer
the 503 problem with Retry-After while it is down, never a 500; ``/v1/usage`` answers
from the history meanwhile; once back, the count is rebuilt from the history (exact:
the outage outlasted ``METER_FLUSH_SECONDS``, so the workers had written everything),
the account gets exactly its quota, and a key revoked and another rotated during the
outage stay revoked and rotated.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.conf import settings
from django.test import override_settings

from core.problems import ServiceUnavailable
from keys.models import ApiKey
from keys.services import key_revoke, key_rotate
from metering import selectors, services
from metering.backends import RedisMeter, meter_reset, redis_client
from tests.faults.conftest import FLUSH_SECONDS, Tenant, history_total, problem_type, wait_for
from tests.support.servers import gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]

QUOTA = 15


class Outage:
    """Takes the meter's store away and brings it back empty, for either pass."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.request = request
        self.redis = request.getfixturevalue("throwaway_redis") if settings.REDIS_URL else None

    @contextmanager
    def server(self) -> Iterator[str]:
        if self.redis is None:
            self.request.getfixturevalue("settings").METER_FLUSH_SECONDS = float(FLUSH_SECONDS)
            yield self.request.getfixturevalue("live_server").url
            return
        caches = {
            alias: {**config, "LOCATION": self.redis.url}
            for alias, config in settings.CACHES.items()
        }
        env = {"REDIS_URL": self.redis.url, "METER_FLUSH_SECONDS": FLUSH_SECONDS}
        # This process's key services must invalidate the server's key cache.
        with override_settings(CACHES=caches), gunicorn(workers=2, threads=2, **env) as base:
            yield base

    def down(self) -> None:
        if self.redis is not None:
            self.redis.stop()
            return
        monkeypatch = self.request.getfixturevalue("monkeypatch")
        closed = RedisMeter(redis_client("redis://127.0.0.1:1/0"))  # nothing listens there
        monkeypatch.setattr(services, "get_meter", lambda: closed)
        monkeypatch.setattr(selectors, "get_meter", lambda: closed)
        self.monkeypatch = monkeypatch

    def up(self) -> None:
        if self.redis is not None:
            self.redis.start()
            return
        self.monkeypatch.undo()
        meter_reset()  # the in-process meter starts empty, as after a restart


def revoke_and_rotate(tenant: Tenant) -> tuple[bool, str | None]:
    """Revoke key 0 and rotate key 1 if the services can; a refusal must leave the key
    as it was (never half-changed). Returns (revoked, new secret or None)."""
    revoked, secret = True, None
    try:
        key_revoke(key=tenant.keys[0])
    except ServiceUnavailable:
        revoked = False
        assert ApiKey.objects.get(pk=tenant.keys[0].pk).revoked_at is None
    try:
        secret = key_rotate(key=tenant.keys[1])[1]
    except ServiceUnavailable:
        assert ApiKey.objects.get(pk=tenant.keys[1].pk).rotated_at is None
    return revoked, secret


def test_a_meter_restart_answers_503_then_resumes_from_the_history(request):
    tenant = Tenant(quota=QUOTA)
    outage = Outage(request)
    with outage.server() as base:
        assert [problem_type(tenant.read(base)) for _ in range(6)] == [200] * 6
        wait_for(lambda: history_total(tenant.account.pk) == 6, what="the history of 6")

        outage.down()
        down = [tenant.read(base) for _ in range(5)]
        assert {problem_type(r) for r in down} == {"/problems/service-unavailable"}
        assert all(headers["Retry-After"] for _, headers, _ in down)
        assert tenant.usage(base) == 6  # from the history
        revoked, new_secret = revoke_and_rotate(tenant)
        outage.up()

        if not revoked:  # refused while Redis was down: done now, and it must hold
            key_revoke(key=tenant.keys[0])
        if new_secret is None:
            new_secret = key_rotate(key=tenant.keys[1])[1]
        assert tenant.usage(base) == 6  # rebuilt from the history, exactly
        after = [problem_type(tenant.read(base)) for _ in range(QUOTA)]
        assert after == [200] * (QUOTA - 6) + ["/problems/quota-exceeded"] * 6
        assert tenant.usage(base) == QUOTA
        assert tenant.read(base, tenant.secrets[0])[0] == 401
        assert tenant.read(base, tenant.secrets[1])[0] == 401
        assert problem_type(tenant.read(base, new_secret)) == "/problems/quota-exceeded"
