"""Fixtures shared by every test.

The suite runs against real services: SQLite and in-process metering when no
environment is set, PostgreSQL and Redis when ``DATABASE_URL`` and ``REDIS_URL`` are.
When ``REDIS_URL`` is set and Redis does not answer, the run fails; it never skips.
"""

from __future__ import annotations

import datetime as dt
import io
import logging
import os
import tempfile
import uuid
from collections.abc import Callable, Iterator

import pytest
import time_machine
from django.conf import settings
from django.core.cache import caches
from django.core.management import call_command
from django.test import override_settings
from rest_framework.test import APIClient

from accounts.models import Account
from accounts.services import account_set_tier
from catalogue.delivery import rendering
from keys.models import ApiKey
from keys.services import key_create
from tests.factories import AccountFactory
from tests.support.servers import redis_clear

# A fixed instant for tests that control the clock: 2026-03-10 14:25:00 UTC.
T0 = dt.datetime(2026, 3, 10, 14, 25, tzinfo=dt.UTC)


def pytest_report_header(config: pytest.Config) -> str:
    db = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    return f"foodservice backends: database={db} metering={settings.METER_BACKEND}"


SESSION_LOG = os.path.join(tempfile.gettempdir(), f"foodservice-test-run-{os.getpid()}.log")


def _log_every_record_of_the_run() -> None:
    """Every log record of the whole run, through the formatter ``settings.LOGGING``
    configures for the console, into ``SESSION_LOG`` (checked at the end of the run)."""
    from core.logformat import JsonFormatter, TextFormatter

    configured = [
        h.formatter
        for h in logging.getLogger().handlers
        if isinstance(h.formatter, JsonFormatter | TextFormatter)
    ]
    if not configured:
        pytest.exit("settings.LOGGING has no redacting formatter on the root logger", returncode=3)
    handler = logging.FileHandler(SESSION_LOG, mode="w", encoding="utf-8")
    handler.setFormatter(configured[0])
    logging.getLogger().addHandler(handler)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Issue 7.4: the logs of the whole run hold no API key (``svc_sk_live_``)."""
    if settings.REDIS_URL:
        try:  # this worker's keys: the shared Redis database keeps none of them
            redis_clear()
        except Exception as exc:  # Redis down at the end: the keys expire or stay
            print(f"\nRedis keys of {settings.REDIS_KEY_PREFIX} left: {exc}")
    if not os.path.exists(SESSION_LOG):
        return
    with open(SESSION_LOG, encoding="utf-8") as log:
        leaks = [line for line in log if "svc_sk_live_" in line]
    if leaks:
        session.exitstatus = 1
        print(f"\nFAILED: {len(leaks)} log line(s) of this run hold an API key: {SESSION_LOG}")
    else:
        os.remove(SESSION_LOG)


def pytest_configure(config: pytest.Config) -> None:
    """One run never touches another's data, nor an xdist worker its neighbour's: the
    PostgreSQL test database is ``test_<name>_<run>`` (pytest-django adds ``_gw<n>`` per
    worker) and every Redis key starts ``fs-test-<run>-<worker>:``, where ``<run>`` is
    made once per run (``FOODSERVICE_TEST_RUN``, inherited by the workers) and
    ``<worker>`` is xdist's worker id. Servers the tests start get the same
    (``tests.support.servers.server_env``)."""
    run = os.environ.setdefault("FOODSERVICE_TEST_RUN", uuid.uuid4().hex[:8])
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    db = settings.DATABASES["default"]
    # Django fills TEST with defaults (NAME None) once the connections are configured.
    if not db["ENGINE"].endswith("sqlite3") and not db.get("TEST", {}).get("NAME"):
        db.setdefault("TEST", {})["NAME"] = f"test_{db['NAME']}_{run}"
    settings.REDIS_KEY_PREFIX = f"fs-test-{run}-{worker}"
    for alias in settings.CACHES:
        settings.CACHES[alias]["KEY_PREFIX"] = settings.REDIS_KEY_PREFIX


def pytest_sessionstart(session: pytest.Session) -> None:
    _log_every_record_of_the_run()
    if settings.REDIS_URL:
        from django_redis import get_redis_connection

        try:
            get_redis_connection("default").ping()
        except Exception as exc:  # any failure means "unreachable"
            pytest.exit(f"REDIS_URL={settings.REDIS_URL} is unreachable: {exc}", returncode=3)


@pytest.fixture(scope="session", autouse=True)
def _static_files_found_once() -> Iterator[None]:
    """WhiteNoise's middleware lists every static file through the finders when it is
    built (~35 ms, 175 files and their stats). A server builds it once; the test client
    builds its middleware for every new client, which made that listing a sixth of the
    dashboard tests' CPU (issue 41.4). Here it is listed once a run and the same
    ``StaticFile`` objects handed to every later middleware: what they serve is
    unchanged (no test changes a static file)."""
    from whitenoise.middleware import WhiteNoiseMiddleware

    original = WhiteNoiseMiddleware.add_files_from_finders
    found: dict[str, dict] = {}

    def add_files_from_finders(self: WhiteNoiseMiddleware) -> None:
        if self.static_prefix not in found:
            kept, self.files = self.files, {}
            original(self)
            found[self.static_prefix], self.files = self.files, kept
        self.files.update(found[self.static_prefix])

    WhiteNoiseMiddleware.add_files_from_finders = add_files_from_finders  # type: ignore[method-assign]
    yield
    WhiteNoiseMiddleware.add_files_from_finders = original  # type: ignore[method-assign]


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """On SQLite, test in a file rather than in memory, so threads (the concurrent key
    creation race) and a second server process share the database. One file per run:
    several runs may share the machine."""
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        name = os.path.join(tempfile.gettempdir(), f"foodservice-test-{os.getpid()}.sqlite3")
        db.setdefault("TEST", {})["NAME"] = name


@pytest.fixture(autouse=True)
def _fast_password_hasher(request: pytest.FixtureRequest) -> Iterator[None]:
    """Argon2 (100 MB, ~100 ms a hash) on every test user would dominate the suite's
    time, so tests hash passwords with a fast hasher unless marked ``real_hashers``
    (the tests that prove production hashes with Argon2)."""
    if request.node.get_closest_marker("real_hashers"):
        yield
        return
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    """Every test starts with empty caches: on Redis, none of this worker's keys (its
    own prefix: ``clear()`` would empty the database the other workers share)."""
    if settings.REDIS_URL:
        redis_clear()
    for alias, config in settings.CACHES.items():
        if config["BACKEND"].startswith("django_redis"):
            assert caches[alias].key_prefix == settings.REDIS_KEY_PREFIX, alias
        else:
            caches[alias].clear()
    yield


@pytest.fixture
def clock() -> Iterator[time_machine.Coordinates]:
    """A controlled clock stopped at ``T0``; move it with ``clock.shift(seconds)`` or
    ``clock.move_to(datetime)``."""
    with time_machine.travel(T0, tick=False) as traveller:
        yield traveller


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def account(db: None) -> Account:
    """A Taster account with market US chosen."""
    return AccountFactory(market="US")


@pytest.fixture
def key_and_secret(account: Account) -> tuple[ApiKey, str]:
    """An active key of ``account`` and its raw secret, made by the real service."""
    return key_create(account=account, label="test key")


@pytest.fixture
def paid_key_and_secret(db: None) -> tuple[ApiKey, str]:
    """An active key of a Sous Chef account (no market chosen)."""
    paid = AccountFactory()
    account_set_tier(account=paid, tier="sous_chef")
    return key_create(account=paid, label="paid key")


@pytest.fixture
def run_command() -> Callable[..., str]:
    """Run a management command in-process and return its stdout. A failure raises
    ``CommandError`` with the one line the command would print on stderr."""

    def run(*args: str) -> str:
        stdout = io.StringIO()
        call_command(*args, stdout=stdout, stderr=io.StringIO())
        return stdout.getvalue()

    return run


@pytest.fixture(autouse=True)
def _catalogue_changes_seen_at_once(settings) -> None:  # pytest-django's settings fixture
    """Tests change the catalogue and read it back at once: no worker memory of
    rendered bytes (catalogue/delivery/rendering.py; tests/catalogue test it on its own). A test
    that turns the memory on starts it empty: a version number read in an earlier test
    can come back after that test's rollback, with the earlier test's bytes."""
    settings.CATALOGUE_VERSION_SECONDS = 0
    # Shared copies are written during the request (tests read Redis right after it);
    # tests/catalogue/delivery test the writer thread on its own.
    settings.CATALOGUE_SHARE_WRITE_SECONDS = 0
    rendering.local_records.clear()
    rendering.local_pages.clear()


@pytest.fixture(autouse=True)
def _fresh_meter(settings) -> Iterator[None]:  # pytest-django's settings fixture
    """Every test starts with an empty in-process meter and no usage flusher thread
    (tests write the history with ``usage_flush()``), and no requests noted for the
    usage log (written with ``outcomes_flush()``)."""
    from metering import outcomes, recorder
    from metering.backends import meter_reset

    settings.METER_FLUSH_SECONDS = 0
    meter_reset()
    outcomes.buffer.clear()
    yield
    recorder.flusher.stop()
    meter_reset()
    outcomes.buffer.clear()


@pytest.fixture
def unhurried(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests of what a search finds, not how fast (the judged sets among them): the short time
    budgets of its fallbacks (relaxing a long query, widening unknown words, spelling)
    made roomy, so a loaded machine cannot turn a hit into a miss. Their bounds are
    tested on their own (tests/catalogue/search/: test_cost_bound.py, test_spelling_bounds.py,
    test_relaxation.py, test_long_queries.py)."""
    roomy_budgets(monkeypatch)


def roomy_budgets(monkeypatch: pytest.MonkeyPatch) -> None:
    """``unhurried``'s budgets, for a fixture of a wider scope (its own MonkeyPatch)."""
    from catalogue.search import matching, spelling

    monkeypatch.setattr(matching, "RELAX_BUDGET_SECONDS", 30.0)
    monkeypatch.setattr(matching, "WIDEN_BUDGET_SECONDS", 30.0)
    monkeypatch.setattr(spelling, "BUDGET_SECONDS", 30.0)
