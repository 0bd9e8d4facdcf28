"""core/sql.py: the raw statements every read runs are prepared on PostgreSQL (issue
41.2), through Django's cursor wrappers; the ORM and every other backend are as before."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.sql import prepared_cursor

pytestmark = pytest.mark.django_db

ON_POSTGRES = connection.vendor == "postgresql"
PROBE = "SELECT %s::int + 40 AS answer /* core.sql test */"


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


@pytest.mark.skipif(not ON_POSTGRES, reason="prepared statements are PostgreSQL's")
def test_a_statement_is_prepared_once_and_answers_as_before() -> None:
    with prepared_cursor("default") as cursor:
        for n in (1, 2, 3):
            cursor.execute(PROBE, [n])
            assert cursor.fetchone() == (n + 40,)
    probes = [s for s in prepared_statements() if "core.sql test" in s]
    assert len(probes) == 1 and "$1" in probes[0]  # bound on the server, prepared once


@pytest.mark.skipif(not ON_POSTGRES, reason="prepared statements are PostgreSQL's")
def test_the_query_log_shows_each_statement_with_its_values() -> None:
    with CaptureQueriesContext(connection) as captured, prepared_cursor("default") as cursor:
        cursor.execute(PROBE, [2])
        assert cursor.fetchone() == (42,)
    (logged,) = [q["sql"] for q in captured if "core.sql test" in q["sql"]]
    assert "2::int + 40" in logged


@pytest.mark.skipif(not ON_POSTGRES, reason="prepared statements are PostgreSQL's")
def test_with_prepared_statements_off_nothing_is_prepared() -> None:
    options = connection.settings_dict["OPTIONS"]
    before = options.get("prepare_threshold")
    options["prepare_threshold"] = None  # DATABASE_PREPARED=0 or DATABASE_PGBOUNCER=1
    try:
        with prepared_cursor("default") as cursor:
            cursor.execute(PROBE + " /* off */", [1])
            assert cursor.fetchone() == (41,)
    finally:
        options["prepare_threshold"] = before
    assert not [s for s in prepared_statements() if "/* off */" in s]


def test_the_orm_and_other_backends_keep_their_cursor() -> None:
    with prepared_cursor("default") as cursor:
        cursor.execute("SELECT %s + 40", [2])
        assert cursor.fetchone()[0] == 42
        if not ON_POSTGRES:
            assert type(cursor.cursor) is type(connection.cursor().cursor)
