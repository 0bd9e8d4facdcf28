"""Issue 18.3: the service through a real PgBouncer in transaction pooling mode.

A pgbouncer of the test's own (pool_mode = transaction, 4 server connections) in front
of the PostgreSQL of this run; a second pytest runs ``SUBSET`` through it with
``DATABASE_PGBOUNCER=1``: one module per kind of request (every API endpoint, the
dashboard's pages and forms, health, and real gunicorn workers), so every request path
runs through PgBouncer. Its test database (``test_<name>_pgbouncer``) is a copy of this
run's test database, used with ``--reuse-db`` and dropped here afterwards, directly
(PgBouncer holds server connections to it, which a DROP from the run would trip on).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from tests.support.scale_out import ThrowawayPgBouncer
from tests.support.servers import ROOT

SUBSET = [
    "tests/catalogue/delivery/test_records_and_caching.py",  # food, nutrient, category records
    "tests/catalogue/search/test_search.py",  # search, incl. the phrase index's raw SQL
    "tests/catalogue/search/test_cost_bound.py",  # statement_timeout by set_config in a transaction
    "tests/accounts/test_market_api.py",  # GET/PUT /v1/market
    "tests/metering/test_api.py",  # /v1/usage, metered reads, 429s
    "tests/keys/test_authentication.py",
    # real gunicorn workers through PgBouncer: one server is enough to prove the path
    "tests/keys/test_other_processes.py::test_changes_made_elsewhere_are_seen_by_every_worker",
    "tests/dashboard/test_signup.py",
    "tests/dashboard/test_signin.py",
    "tests/dashboard/test_keys_views.py",
    "tests/dashboard/test_usage.py",
    "tests/dashboard/test_plan.py",
    "tests/ops/test_health.py",
]


def _direct(dbname: str) -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=dbname,
        autocommit=True,
    )


@pytest.fixture
def pgbouncer() -> Iterator[ThrowawayPgBouncer]:
    db = connection.settings_dict
    bouncer = ThrowawayPgBouncer((db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432)))
    bouncer.start()
    yield bouncer
    bouncer.stop()


def test_the_request_paths_pass_through_pgbouncer_in_transaction_mode(
    pgbouncer, django_db_setup, django_db_blocker
):
    db = connection.settings_dict
    name = f"{settings.DATABASES['default']['NAME'].removeprefix('test_')}_pgbouncer"
    test_db = f"test_{name}_{os.environ['FOODSERVICE_TEST_RUN']}"  # as tests/conftest.py names it
    # A copy of this run's migrated (and empty) test database, so the second run only
    # checks its migrations instead of applying them all again.
    with django_db_blocker.unblock():
        connection.close()
    with _direct("postgres") as direct:
        direct.execute(f'DROP DATABASE IF EXISTS "{test_db}" WITH (FORCE)')
        direct.execute(f'CREATE DATABASE "{test_db}" TEMPLATE "{db["NAME"]}"')
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(
        DATABASE_URL=f"postgres://{auth}@127.0.0.1:{pgbouncer.port}/{name}",
        DATABASE_PGBOUNCER="1",
    )
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                *SUBSET,
                "-q",
                "-x",
                "--reuse-db",
                "-p",
                "no:randomly",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        log = pgbouncer.log()
        pgbouncer.stop()
        with _direct("postgres") as direct:
            direct.execute(f'DROP DATABASE IF EXISTS "{test_db}" WITH (FORCE)')
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]
    assert f"db={test_db}" in log  # the run's connections went through PgBouncer
