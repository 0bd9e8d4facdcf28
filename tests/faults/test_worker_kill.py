"""A gunicorn worker killed with SIGKILL mid-traffic (issue 7.6; the long form is
bench/fault_worker_kill.py).

PostgreSQL + Redis pass: 2 workers sharing Redis. The live counts are in Redis, so the
kill costs no quota accuracy at all: the account is admitted exactly its quota.
Embedded pass: the default single worker with the in-process meter. Its counts die with
it; the master starts a new worker whose meter is rebuilt from the usage history, which
lacks what the dead worker had not written yet (docs/metering.md, "Usage history": at
most ``METER_FLUSH_SECONDS`` of its traffic). The account may then be admitted that many
requests beyond its quota, and no more.
"""

from __future__ import annotations

import os
import signal

import pytest
from django.conf import settings

from keys.services import key_revoke, key_rotate
from tests.faults.conftest import (
    FLUSH_SECONDS,
    Tenant,
    history_total,
    problem_type,
    wait_for,
    worker_pids,
)
from tests.servers import gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]

QUOTA = 20
UNWRITTEN = 5  # requests admitted after the last confirmed flush, before the kill


def test_a_killed_worker_is_replaced_and_loses_at_most_its_unwritten_history():
    tenant = Tenant(quota=QUOTA)
    workers = 2 if settings.REDIS_URL else 1
    env = {"METER_FLUSH_SECONDS": FLUSH_SECONDS, "GUNICORN_MAX_REQUESTS": "0"}
    with gunicorn(workers=workers, threads=2, **env) as base:
        assert [problem_type(tenant.read(base)) for _ in range(8)] == [200] * 8
        wait_for(lambda: history_total(tenant.account.pk) == 8, what="the history of 8")
        assert [problem_type(tenant.read(base)) for _ in range(UNWRITTEN)] == [200] * UNWRITTEN

        before = worker_pids(base)
        os.kill(before[0], signal.SIGKILL)
        key_revoke(key=tenant.keys[0])  # while the worker is down
        _, new_secret = key_rotate(key=tenant.keys[1])
        wait_for(
            lambda: len(worker_pids(base)) == workers and before[0] not in worker_pids(base),
            what="the master to replace the worker",
        )
        # The dead worker writes no more (on Redis, the live one may still add some).
        written = history_total(tenant.account.pk)
        assert 8 <= written <= 8 + UNWRITTEN

        after = [problem_type(tenant.read(base)) for _ in range(QUOTA)]
        assert 500 not in after and "/problems/internal-error" not in after
        admitted_after = after.count(200)
        lost = 8 + UNWRITTEN - written
        if settings.REDIS_URL:  # nothing lost from the live counts
            assert admitted_after == QUOTA - 8 - UNWRITTEN
        else:  # rebuilt from the history: the unwritten requests are admitted again
            assert admitted_after == QUOTA - written
        assert 8 + UNWRITTEN + admitted_after <= QUOTA + lost <= QUOTA + UNWRITTEN
        assert after[admitted_after:] == ["/problems/quota-exceeded"] * (QUOTA - admitted_after)
        assert tenant.usage(base) == QUOTA

        assert tenant.read(base, tenant.secrets[0])[0] == 401  # revocation held
        assert tenant.read(base, tenant.secrets[1])[0] == 401  # rotation held
        assert problem_type(tenant.read(base, new_secret)) == "/problems/quota-exceeded"
    # Graceful stop: the live workers wrote everything they admitted; only the killed
    # worker's unwritten requests are missing.
    final = history_total(tenant.account.pk)
    if settings.REDIS_URL:  # which worker held the unwritten ones is not known
        assert QUOTA - UNWRITTEN <= final <= QUOTA
    else:
        assert final == written + admitted_after == QUOTA
