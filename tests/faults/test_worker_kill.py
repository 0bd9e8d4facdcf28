"""A gunicorn worker killed with SIGKILL mid-traffic (issue 7.6, issue 19; the long
form is bench/scripts/fault_worker_kill.py).

PostgreSQL + Redis pass: 2 workers sharing Redis. The live counts and the per-key hourly
buckets are both in Redis (counted in the same atomic step), so the kill costs nothing:
the account is admitted exactly its quota and the history ends up holding every
admitted request. Embedded pass: the default single worker with the in-process meter.
Its counts die with it; the master starts a new worker whose meter is rebuilt from the
usage history, which lacks what the dead worker had not copied yet (docs/metering.md,
"Usage history": at most ``METER_FLUSH_SECONDS`` of its traffic). The account may then
be admitted that many requests beyond its quota, and no more.

The second case kills a worker and then loses the meter's data (Redis flushed; on the
embedded pass the kill is that loss): the count rebuilt from the history gives at most
the requests of the last flush interval as extra quota, never more.
"""

from __future__ import annotations

import os
import signal
import time

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
from tests.support.servers import gunicorn, redis_clear

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]

QUOTA = 20
UNWRITTEN = 5  # requests admitted after the last confirmed flush, before the kill
ENV = {"METER_FLUSH_SECONDS": FLUSH_SECONDS, "GUNICORN_MAX_REQUESTS": "0"}


def kill_one_worker(base: str, workers: int) -> None:
    before = worker_pids(base)
    os.kill(before[0], signal.SIGKILL)
    wait_for(
        lambda: len(worker_pids(base)) == workers and before[0] not in worker_pids(base),
        what="the master to replace the worker",
    )


def test_a_killed_worker_is_replaced_and_loses_at_most_its_unwritten_history():
    tenant = Tenant(quota=QUOTA)
    workers = 2 if settings.REDIS_URL else 1
    with gunicorn(workers=workers, threads=2, **ENV) as base:
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
        # The history catches up while the server runs: the buckets the killed worker
        # counted are in Redis, and the next copy of the account carries them.
        wait_for(lambda: history_total(tenant.account.pk) == QUOTA, what="the whole history")
    # On either pass the history holds exactly what the live meter counted: nothing of
    # the killed worker's traffic is missing on Redis; on the embedded pass the
    # rebuilt meter re-admitted the lost requests and counted them again.
    assert history_total(tenant.account.pk) == QUOTA


def test_a_killed_worker_then_a_meter_loss_gives_no_more_than_the_last_interval():
    tenant = Tenant(quota=QUOTA)
    workers = 2 if settings.REDIS_URL else 1
    with gunicorn(workers=workers, threads=2, **ENV) as base:
        assert [problem_type(tenant.read(base)) for _ in range(8)] == [200] * 8
        wait_for(lambda: history_total(tenant.account.pk) == 8, what="the history of 8")
        assert [problem_type(tenant.read(base)) for _ in range(UNWRITTEN)] == [200] * UNWRITTEN

        kill_one_worker(base, workers)
        if settings.REDIS_URL:  # the meter's store loses everything it held
            redis_clear()
        time.sleep(3 * float(FLUSH_SECONDS))  # a copy in flight at the loss lands
        written = history_total(tenant.account.pk)
        lost = 8 + UNWRITTEN - written
        assert 0 <= lost <= UNWRITTEN  # only what was admitted since the last copy

        after = [problem_type(tenant.read(base)) for _ in range(QUOTA)]
        admitted_after = after.count(200)
        assert admitted_after == QUOTA - written  # rebuilt from the history, exactly
        assert after[admitted_after:] == ["/problems/quota-exceeded"] * (QUOTA - admitted_after)
        # The extra quota is the requests lost from the history, at most the last
        # flush interval's: never more.
        assert 8 + UNWRITTEN + admitted_after == QUOTA + lost <= QUOTA + UNWRITTEN
        assert tenant.usage(base) == QUOTA
        wait_for(lambda: history_total(tenant.account.pk) == QUOTA, what="the history")
