"""Catalogue reads on PostgreSQL read replicas (issue 18.4; docs/operations.md, "Read
replicas").

``DATABASE_REPLICA_URLS`` adds one database alias per replica (``replica1``, ...).
``ReplicaRouter`` sends a read of a catalogue model to a healthy replica when
``ReplicaReadsMiddleware`` marked the current request as a safe (GET/HEAD) one and no
transaction is open on the primary; every other read (keys, accounts, metering, the
dashboard's own data, management commands such as the catalogue loader) and every write
goes to the primary. So a replica can only ever serve catalogue data a little late, and
never key state.

A replica is skipped (the primary answers instead) while it is down, for
``DOWN_SECONDS`` after any failure to connect or to run a query, and while its replay
lags its received WAL by more than ``settings.DATABASE_REPLICA_MAX_LAG`` seconds (checked
at most every ``LAG_CHECK_SECONDS``). A query that fails on a replica mid-request is run
again on the primary (``foodservice.replica_db``), so a replica dying never fails a
request.
"""

from __future__ import annotations

import contextvars
import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger("foodservice.replicas")

DOWN_SECONDS = 5.0
LAG_CHECK_SECONDS = 2.0
REPLICA_APPS = frozenset({"catalogue"})
_LAG_SQL = (
    "SELECT pg_is_in_recovery(), CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()"
    " THEN 0 ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END"
)

_reads_allowed: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "replica_reads_allowed", default=False
)


def replica_aliases() -> list[str]:
    return [alias for alias in settings.DATABASES if alias.startswith("replica")]


class _Health:
    """Per process: when each replica may be tried again, and its last lag check."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.down_until: dict[str, float] = {}
        self.checked_at: dict[str, float] = {}

    def mark_down(self, alias: str, reason: str) -> None:
        with self.lock:
            self.down_until[alias] = time.monotonic() + DOWN_SECONDS
        logger.warning("replica %s skipped for %.0f s: %s", alias, DOWN_SECONDS, reason)

    def usable(self, alias: str) -> bool:
        now = time.monotonic()
        with self.lock:
            if self.down_until.get(alias, 0.0) > now:
                return False
            due = self.checked_at.get(alias, 0.0) + LAG_CHECK_SECONDS <= now
            if due:
                self.checked_at[alias] = now
        return not due or self._check(alias)

    def _check(self, alias: str) -> bool:
        """Connect (if needed) and read the replica's lag; False marks it down."""
        connection = connections[alias]
        try:
            connection.ensure_connection()
            with connection.connection.cursor() as cursor:  # the raw one: no fallback
                cursor.execute(_LAG_SQL)
                in_recovery, lag = cursor.fetchone()
        except Exception as exc:  # any failure: the primary answers instead
            connection.close()
            self.mark_down(alias, type(exc).__name__)
            return False
        if in_recovery and float(lag) > settings.DATABASE_REPLICA_MAX_LAG:
            self.mark_down(alias, f"replay lags {float(lag):.1f} s")
            return False
        return True

    def reset(self) -> None:
        with self.lock:
            self.down_until.clear()
            self.checked_at.clear()


health = _Health()


def pick_replica() -> str | None:
    """A usable replica's alias, or None (then the primary answers)."""
    aliases = replica_aliases()
    random.shuffle(aliases)
    for alias in aliases:
        if health.usable(alias):
            return alias
    return None


class ReplicaRouter:
    """``DATABASE_ROUTERS`` entry (installed only when replicas are configured)."""

    def db_for_read(self, model: type, **hints: Any) -> str | None:
        if model._meta.app_label not in REPLICA_APPS or not _reads_allowed.get():
            return None
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return None  # a transaction on the primary reads its own writes
        return pick_replica()

    def db_for_write(self, model: type, **hints: Any) -> str | None:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        return True  # every alias holds the same data

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        return db == DEFAULT_DB_ALIAS  # replicas replay the primary's schema


class ReplicaReadsMiddleware:
    """Marks GET and HEAD requests as allowed to read the catalogue from a replica."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = _reads_allowed.set(request.method in ("GET", "HEAD"))
        try:
            return self.get_response(request)
        finally:
            _reads_allowed.reset(token)
