"""Issue 41.1: Django's connection health check without a round trip when the connection
shows nothing wrong (foodservice/ops/postgresql). PostgreSQL's pass only; the fault tests
(tests/faults/test_postgres_restart.py) cut a running gunicorn's connections as well."""

from __future__ import annotations

import re
import select
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.db import OperationalError, connection

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgresql() -> Iterator[None]:
    if connection.vendor != "postgresql":
        pytest.skip("the health check is PostgreSQL's")
    assert connection.settings_dict["ENGINE"] == "foodservice.ops.postgresql"
    assert connection.settings_dict["CONN_HEALTH_CHECKS"] is True
    yield
    connection.close()  # a session ended here is not the next test's (or the flush's)


def _sent(trace: Path) -> list[str]:
    """The messages libpq sent that ask the server for something (its trace)."""
    asked = re.compile(r"\tF\t\d+\t(Query|Parse|Bind|Sync)\b")
    return [line for line in trace.read_text().splitlines() if asked.search(line)]


def _end_session(pid: int) -> None:
    """End the backend ``pid`` from another connection, as a restart or an idle timeout
    would, and wait until its client can see it."""
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"],
        port=db["PORT"],
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=db["NAME"],
        autocommit=True,
    ) as other:
        assert other.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
    poller = select.poll()
    poller.register(connection.connection.pgconn.socket, select.POLLIN)
    deadline = time.monotonic() + 10
    while not poller.poll(50):
        assert time.monotonic() < deadline, "the ended session never reached its client"


def test_an_idle_healthy_connection_is_usable_with_nothing_sent(tmp_path):
    connection.ensure_connection()
    trace = tmp_path / "trace"
    with trace.open("w") as out:
        connection.connection.pgconn.trace(out.fileno())
        try:
            usable = connection.is_usable()
        finally:
            connection.connection.pgconn.untrace()
    assert usable is True
    assert _sent(trace) == []


def test_a_connection_inside_a_transaction_is_checked_with_a_statement(tmp_path):
    # Not idle: what the socket shows says nothing of the transaction, so SELECT 1 decides.
    connection.ensure_connection()
    connection.connection.execute("BEGIN")
    trace = tmp_path / "trace"
    try:
        with trace.open("w") as out:
            connection.connection.pgconn.trace(out.fileno())
            try:
                assert connection.is_usable() is True
            finally:
                connection.connection.pgconn.untrace()
    finally:
        connection.connection.execute("ROLLBACK")
    assert any('"SELECT 1"' in line for line in _sent(trace))


def test_a_connection_whose_session_postgresql_ended_is_not_usable():
    connection.ensure_connection()
    _end_session(connection.connection.info.backend_pid)
    assert connection.is_usable() is False


def test_a_connection_closed_under_django_is_not_usable():
    connection.ensure_connection()
    connection.connection.close()  # libpq's status BAD, no socket
    assert connection.is_usable() is False


def test_the_next_request_after_an_ended_session_reconnects_instead_of_failing():
    # What a request's start does (close_old_connections, then the first query's health
    # check), after PostgreSQL ended the worker's session between two requests.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (first,) = cursor.fetchone()
    _end_session(first)
    connection.close_if_unusable_or_obsolete()  # a request's start: kept (no error yet)
    assert connection.connection is not None
    with connection.cursor() as cursor:  # the health check finds it ended: a new session
        cursor.execute("SELECT pg_backend_pid()")
        (second,) = cursor.fetchone()
    assert second != first


def test_without_the_health_check_the_ended_session_fails_its_next_query(settings):
    # The counterpart that shows what the check saves a request from.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    _end_session(pid)
    connection.health_check_enabled = False
    try:
        connection.close_if_unusable_or_obsolete()
        with pytest.raises(OperationalError), connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        connection.close()
