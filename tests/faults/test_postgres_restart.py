"""The database goes away mid-traffic and comes back (issue 7.6; the long form is
bench/scripts/fault_postgres_restart.py, which restarts a throwaway PostgreSQL cluster).

PostgreSQL + Redis pass: gunicorn (2 workers) reaches the test database through a TCP
proxy; ``cut()`` closes every connection and refuses new ones, which is what a
PostgreSQL restart does to its clients (the shared cluster is never touched).
Embedded pass: the SQLite file is moved away (every new connection then finds an empty
database) and moved back.

Expected either way: requests needing the database answer the 503 problem with
Retry-After, never a 500; ``/readyz`` says the database is down; within seconds of its
return everything answers again (the workers reconnect by themselves); a key revoked
meanwhile is refused; the usage history of the requests admitted before, during and
after is written by the running workers (their flusher recovers; nothing waits for a
graceful stop), and ``/v1/usage`` agrees with what was admitted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection
from django.db.models import Sum

from keys.services import key_revoke
from metering.models import KeyUsageHour
from tests.faults.conftest import FLUSH_SECONDS, TcpProxy, Tenant, history_total, wait_for
from tests.support import servers
from tests.support.servers import fetch, gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]


class DatabaseOutage:
    def __init__(self) -> None:
        db = connection.settings_dict
        self.sqlite = db["ENGINE"].endswith("sqlite3")
        self.proxy: TcpProxy | None = None
        if self.sqlite:
            self.path = Path(db["NAME"])
            self.aside = self.path.with_name(self.path.name + ".away")
        else:
            self.proxy = TcpProxy((db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432)))

    @contextmanager
    def server(self) -> Iterator[str]:
        url = servers.test_database_url()
        if self.proxy is not None:
            port = url.rsplit("@", 1)[1].split("/", 1)[0].rsplit(":", 1)[1]
            url = url.replace(f":{port}/", f":{self.proxy.port}/") + "?connect_timeout=2"
        # No worker memory of served records (catalogue/delivery/rendering.py): a worker would
        # otherwise answer the reads it already served for up to a second of the outage.
        env = {
            "DATABASE_URL": url,
            "METER_FLUSH_SECONDS": FLUSH_SECONDS,
            "CATALOGUE_VERSION_SECONDS": "0",
        }
        try:
            with gunicorn(workers=1 if self.sqlite else 2, threads=2, **env) as base:
                yield base
        finally:
            if self.proxy is not None:
                self.proxy.close()
            elif self.aside.exists():
                os.replace(self.aside, self.path)

    def down(self) -> None:
        if self.proxy is not None:
            self.proxy.cut()
        else:
            connection.close()  # this process's connection must not write the moved file
            os.replace(self.path, self.aside)

    def up(self) -> None:
        if self.proxy is not None:
            self.proxy.restore()
        else:  # replaces the empty file the server's new connections created
            os.replace(self.aside, self.path)


def admitted(result: tuple[int, dict, bytes]) -> bool:
    """Metered and admitted: the meter counted it (a 5xx after admission is given back,
    so it does not count)."""
    status, headers, _ = result
    return "RateLimit-Limit" in headers and status != 429 and status < 500


def failed_total(account_id: int) -> int:
    rows = KeyUsageHour.objects.filter(account_id=account_id)
    return rows.aggregate(n=Sum("failed"))["n"] or 0


def test_a_database_outage_answers_503_and_recovers_by_itself():
    tenant = Tenant(quota=1000)
    outage = DatabaseOutage()
    with outage.server() as base:
        before = [tenant.read(base) for _ in range(6)]
        assert [status for status, _, _ in before] == [200] * 6
        wait_for(lambda: history_total(tenant.account.pk) == 6, what="the history of 6")

        outage.down()
        down = [tenant.read(base) for _ in range(6)]
        assert {status for status, _, _ in down} == {503}
        assert {json.loads(body)["type"] for _, _, body in down} == {
            "/problems/service-unavailable"
        }
        assert all(headers["Retry-After"] for _, headers, _ in down)
        status, _, body = fetch(f"{base}/readyz")
        assert status == 503
        if not outage.sqlite:  # SQLite opens the empty file: it is the tables that are gone
            assert json.loads(body)["checks"]["database"] == "down"
        if not outage.sqlite:  # this process still reaches the database: revoke now
            key_revoke(key=tenant.keys[0])
        outage.up()
        if outage.sqlite:  # one file for every process: revoked before the server reads
            key_revoke(key=tenant.keys[0])
        # The 503s cost nothing: those the meter had admitted (on PostgreSQL + Redis the
        # keys come from the key cache, so the meter admits before the view's query
        # fails; they carry RateLimit headers) were given back.
        charged_503s = [r for r in down if "RateLimit-Limit" in r[1]]
        if not outage.sqlite:
            assert charged_503s, "the meter admitted the requests of the outage"
        assert tenant.usage(base) == 6

        wait_for(lambda: tenant.read(base)[0] == 200, timeout=10, what="reads to succeed")
        after = [tenant.read(base) for _ in range(6)]
        assert [status for status, _, _ in after] == [200] * 6
        assert tenant.read(base, tenant.secrets[0])[0] == 401
        if not outage.sqlite:  # (on SQLite, /readyz keeps the empty file's "pending
            # migrations" for its 30-second migration-check cache)
            assert fetch(f"{base}/readyz")[0] == 200

        counted = sum(map(admitted, before + down + after))
        probes = tenant.usage(base) - counted  # the reads of wait_for, all admitted
        assert probes >= 1
        # The running workers write the history again, the outage's admissions included.
        wait_for(
            lambda: (
                history_total(tenant.account.pk) == counted + probes
                and failed_total(tenant.account.pk) == len(charged_503s)
            ),
            timeout=10,
            what="the workers to write the history after the outage",
        )
