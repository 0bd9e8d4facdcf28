"""A time budget for the catalogue's costly reads (issue 36.1): searches, suggestions and
analyses.

The query plans keep every input near an ordinary request's cost (no prefix under
``text.MIN_PREFIX`` letters, no search without a letter or digit, no ranking of more
than ``selectors.TAIL_RANK_CAP`` matches below the phrase index); this is the backstop
that holds whatever a plan does under load or on a catalogue it was not measured on:

- on PostgreSQL each statement runs under a **statement timeout** of its kind
  (``settings.CATALOGUE_BUDGETS[kind]["statement_ms"]``): ``statement_timeout``, set with
  ``SET LOCAL`` in a transaction of the reads' own, so it holds for these reads only,
  and through PgBouncer's transaction pooling too (every catalogue read of the block is
  pinned to that database: ``catalogue.routing.pinned_reads``); ``plan_cache_mode``
  (``settings.CATALOGUE_PLAN_CACHE_MODE``: generic plans for the prepared statements,
  core/sql.py, unless configured otherwise) is set for the block the same way. The
  transaction's ``BEGIN`` and both settings go in one message (``_begin``, issue 41.1):
  psycopg would send its ``BEGIN`` alone, then the settings, two round trips (~0.1 ms
  of a new search's Python; bench/RESULTS.md, "Issue 41.1: the budget's transaction in
  one message"). Inside an outer transaction (a savepoint) the settings are read and
  put back after the block;
- the request as a whole has a **deadline** (``request_seconds``), checked between
  its steps (``Budget.check``: an analysis checks it before each line's search); on
  SQLite, which has no statement timeout, a progress handler interrupts the statement
  running at the deadline. A request's reads so end within ``request_seconds`` plus
  one statement timeout.

Past either, the reads stop and ``QueryTimeout`` (503, ``Retry-After``) answers: the
worker is free again at once, and the meter gives the request's unit back, as for every
5xx. The deadline is shorter than gunicorn's worker timeout (30 s) and nginx's
``proxy_read_timeout`` (60 s), so the app ends a request before the proxy gives up on it
and nothing the client never received is charged.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import OperationalError, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

from catalogue.routing import catalogue_read_alias, pinned_reads
from core.problems import QueryTimeout

# PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout (query_canceled).
_CANCELED = "57014"
# SQLite calls the progress handler every this many virtual machine instructions
# (~0.1 ms): often enough to stop within a millisecond of the deadline.
_SQLITE_STEPS = 10_000


@dataclass(frozen=True, slots=True)
class Limits:
    """One kind of read's bound: each statement at most ``statement_ms``, the request
    at most ``request_seconds``."""

    statement_ms: int
    request_seconds: float


class Budget:
    """The deadline of one request's reads; ``check()`` between steps."""

    def __init__(self, limits: Limits, clock: Callable[[], float]) -> None:
        self.limits = limits
        self.clock = clock
        self.deadline = clock() + limits.request_seconds

    def remaining_ms(self) -> int:
        """Milliseconds a statement may still run: the statement timeout, or less when
        the deadline comes first (at least 1: 0 would mean none to PostgreSQL)."""
        left = round((self.deadline - self.clock()) * 1000)
        return max(1, min(self.limits.statement_ms, left))

    def check(self) -> None:
        """``QueryTimeout`` once the deadline has passed."""
        if self.clock() >= self.deadline:
            raise QueryTimeout()


# The budget of the reads running in this thread (or task), for ``checkpoint()``.
_active: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("budget", default=None)


def checkpoint() -> None:
    """``QueryTimeout`` when the budget of the reads in progress has run out; nothing
    outside ``read_budget``. Called between the steps of a costly read (each line's
    search in an analysis, the spelling and relaxing fallbacks of a search)."""
    budget = _active.get()
    if budget is not None:
        budget.check()


@contextlib.contextmanager
def read_budget(kind: str, *, clock: Callable[[], float] = time.monotonic) -> Iterator[Budget]:
    """Runs the block's catalogue reads under ``kind``'s limits (see the module); yields
    the ``Budget`` to ``check()`` between steps. ``QueryTimeout`` when a statement is
    stopped or the deadline passes. The block's reads are one read-only transaction on
    PostgreSQL (the catalogue never writes in one)."""
    budget = Budget(Limits(**settings.CATALOGUE_BUDGETS[kind]), clock)
    alias = catalogue_read_alias()
    connection = connections[alias]
    token = _active.set(budget)
    try:
        if connection.vendor == "postgresql":
            with (
                pinned_reads(alias),
                transaction.atomic(using=alias),
                _statement_timeout(connection, budget),
            ):
                yield budget
        else:
            with _interrupt_after(connection, budget):
                yield budget
    except OperationalError as error:
        if _stopped(error):
            raise QueryTimeout() from None
        raise
    finally:
        _active.reset(token)


@contextlib.contextmanager
def _statement_timeout(connection: BaseDatabaseWrapper, budget: Budget) -> Iterator[None]:
    """``statement_timeout`` and ``plan_cache_mode`` for the rest of this transaction; put
    back as they were at the end when the transaction goes on (a savepoint inside an
    outer one)."""
    nested = len(connection.atomic_blocks) > 1
    if not nested and _begin(connection, budget):
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('statement_timeout'), current_setting('plan_cache_mode'), "
            "set_config('statement_timeout', %s, true), set_config('plan_cache_mode', %s, true)",
            (str(budget.remaining_ms()), settings.CATALOGUE_PLAN_CACHE_MODE),
        )
        timeout, plans = cursor.fetchone()[:2]
    yield
    if nested:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT set_config('statement_timeout', %s, true), "
                "set_config('plan_cache_mode', %s, true)",
                (timeout, plans),
            )


# The values ``CATALOGUE_PLAN_CACHE_MODE`` may take (PostgreSQL's own), so a value put
# in ``_begin``'s message is always one of them.
PLAN_CACHE_MODES = ("force_generic_plan", "auto", "force_custom_plan")


def _begin(connection: BaseDatabaseWrapper, budget: Budget) -> bool:
    """Start the outermost budget's transaction with its settings in one message: ``BEGIN``
    and both ``SET LOCAL`` (a simple query: its values are an integer and one of
    ``PLAN_CACHE_MODES``, written in). Sent through psycopg's ``pgconn``, before psycopg
    sends a ``BEGIN`` of its own: psycopg then finds the transaction open, and Django's
    atomic block commits or rolls it back as any other. False, nothing sent, when the
    transaction has begun already (a statement ran in the block before the budget)."""
    from psycopg import errors, pq

    mode = settings.CATALOGUE_PLAN_CACHE_MODE
    if mode not in PLAN_CACHE_MODES:
        raise ImproperlyConfigured(f"CATALOGUE_PLAN_CACHE_MODE must be one of {PLAN_CACHE_MODES}")
    pgconn = connection.connection.pgconn
    if pgconn.transaction_status != pq.TransactionStatus.IDLE:
        return False
    sql = (
        f"BEGIN; SET LOCAL statement_timeout = {int(budget.remaining_ms())}; "
        f"SET LOCAL plan_cache_mode = {mode}"
    )
    started = time.monotonic()
    with connection.wrap_database_errors:
        result = pgconn.exec_(sql.encode())
        if result.status != pq.ExecStatus.COMMAND_OK:
            raise errors.error_from_result(result, encoding="utf-8")
    if connection.queries_logged:  # DEBUG, CaptureQueriesContext: shown as Django shows one
        connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})
    return True


@contextlib.contextmanager
def _interrupt_after(connection: BaseDatabaseWrapper, budget: Budget) -> Iterator[None]:
    """SQLite: a statement still running at the deadline is interrupted ("interrupted",
    an OperationalError). SQLite tells no statement's start to a progress handler, so
    the embedded default bounds the request, not each statement."""
    connection.ensure_connection()
    raw = connection.connection
    raw.set_progress_handler(lambda: budget.clock() >= budget.deadline, _SQLITE_STEPS)
    try:
        yield
    finally:
        raw.set_progress_handler(None, _SQLITE_STEPS)


def _stopped(error: OperationalError) -> bool:
    """Whether ``error`` is a statement stopped by the budget (PostgreSQL's cancel,
    SQLite's interrupt), not another failure."""
    cause = error.__cause__
    if getattr(cause, "sqlstate", None) == _CANCELED:
        return True
    return "interrupted" in str(error)
