"""Every ordinary stop of a server flushes what it counted (issue 36.5): SIGTERM (what
systemd, Docker and Kubernetes send), SIGHUP (a closed terminal), SIGINT (Ctrl-C) and,
for gunicorn, SIGQUIT, each to a real server process, then the history in the database
and GET /v1/usage as a restarted service answers it: through this process's own
client, whose meter never saw the server's reads (a fresh in-process meter in the
embedded pass; the same Redis keys, which a restart keeps, in the other).

The servers run with their flusher thread off (``METER_FLUSH_SECONDS=0``, as
``server_env`` starts them), so nothing reaches the history while they serve: what the
database holds afterwards was written by the stop. They follow the pass's backends:
``manage.py runserver --noreload`` (``make run``) and gunicorn on SQLite with the
in-process meter in the embedded pass (gunicorn with one worker, as ``make serve-prod``
defaults to without Redis), on PostgreSQL and Redis in the other (gunicorn with two
workers; the counts also live in Redis there, so the database is what tells that each
worker flushed its own on its way out).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db.models import Sum
from rest_framework.test import APIClient

from keys.services import key_create
from metering.models import KeyUsageHour
from tests.factories import AccountFactory
from tests.support.servers import ROOT, fetch, free_port, gunicorn, server_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]

READS = 3


def history_total(account_id: int) -> int:
    rows = KeyUsageHour.objects.filter(account_id=account_id)
    return rows.aggregate(n=Sum("count"))["n"] or 0


def read(base: str, secret: str, n: int = READS) -> None:
    """``n`` metered reads (GET /v1/sources: metered, needs no catalogue rows)."""
    statuses = [fetch(f"{base}/v1/sources", {"X-API-Key": secret})[0] for _ in range(n)]
    assert statuses == [200] * n


def request_count_after_restart(secret: str) -> int:
    """``request_count`` of GET /v1/usage as a new process on the same database and
    Redis answers it (this one: its in-process meter is fresh, ``_fresh_meter``)."""
    response = APIClient().get("/v1/usage", HTTP_X_API_KEY=secret)
    assert response.status_code == 200, response.content
    return response.json()["data"]["request_count"]


def wait_until_up(base: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited with {process.returncode}"
        try:
            fetch(f"{base}/healthz")
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the server did not start in time")


def _default_stop_signals() -> None:
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


@contextmanager
def runserver() -> Iterator[tuple[str, subprocess.Popen]]:
    """``manage.py runserver --noreload`` on a free port with this run's database and
    meter, as ``make run`` starts it; yields (base URL, process) and makes sure the
    process is gone afterwards."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=server_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # A suite started in the background of a shell without job control inherits
        # SIGINT ignored, and one started under nohup SIGHUP ignored; Python and the
        # recorder keep an ignored signal so: give the server the defaults, as a
        # terminal's Ctrl-C and hang-up find them.
        preexec_fn=_default_stop_signals,
    )
    try:
        wait_until_up(f"http://127.0.0.1:{port}", process)
        yield f"http://127.0.0.1:{port}", process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


@pytest.mark.parametrize(
    ("stop", "exit_status"),
    [
        (signal.SIGTERM, -signal.SIGTERM),  # flushed, then ended by the signal itself
        (signal.SIGHUP, -signal.SIGHUP),
        (signal.SIGINT, 0),  # KeyboardInterrupt: runserver exits 0
    ],
    ids=["SIGTERM", "SIGHUP", "SIGINT"],
)
def test_runserver_stopped_by_a_signal_keeps_every_counted_request(stop, exit_status):
    account = AccountFactory(market="US")
    secret = key_create(account=account, label="stop")[1]
    with runserver() as (base, process):
        read(base, secret)
        assert history_total(account.pk) == 0  # the flusher thread is off
        process.send_signal(stop)
        assert process.wait(timeout=15) == exit_status
    assert history_total(account.pk) == READS
    assert request_count_after_restart(secret) == READS


def process_state(pid: int) -> str | None:
    """The state letter of process ``pid`` (``Z``: exited, not yet reaped), or None."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def gunicorn_master(base: str) -> int:
    """The pid of the gunicorn this process started on ``base``'s port."""
    bind = f"127.0.0.1:{base.rsplit(':', 1)[1]}".encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isascii() and entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if bind in cmdline and any(b"gunicorn" in part for part in cmdline):
                return int(entry.name)
    raise AssertionError(f"no gunicorn on {base}")


@pytest.mark.parametrize(
    "stop", [signal.SIGTERM, signal.SIGINT, signal.SIGQUIT], ids=["SIGTERM", "SIGINT", "SIGQUIT"]
)
def test_gunicorn_stopped_by_a_signal_keeps_every_counted_request(stop):
    """SIGTERM stops gunicorn's workers gracefully, SIGINT and SIGQUIT at once: either
    way each worker leaves through ``sys.exit`` and flushes in ``atexit``."""
    account = AccountFactory(market="US")
    secret = key_create(account=account, label="stop")[1]
    workers = 2 if settings.REDIS_URL else 1
    with gunicorn(workers=workers, config=True) as base:
        read(base, secret, n=3 * workers)
        assert history_total(account.pk) == 0  # the flusher thread is off
        master = gunicorn_master(base)
        os.kill(master, stop)
        deadline = time.monotonic() + 30
        while process_state(master) not in (None, "Z") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process_state(master) in (None, "Z"), "gunicorn did not stop"
    assert history_total(account.pk) == 3 * workers
    assert request_count_after_restart(secret) == 3 * workers
