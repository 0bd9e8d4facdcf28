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
lag may exceed ``settings.DATABASE_REPLICA_MAX_LAG`` seconds (checked at most every
``LAG_CHECK_SECONDS``). A query that fails on a replica mid-request is run again on the
primary (``foodservice.ops.replica_db``), so a replica dying never fails a request.

Replay lag (issue 30.4) is measured on WAL positions, not on the time since the last
replayed commit (which made an idle primary look like lag: 34 s after idling). Each
check reads the primary's WAL position (``pg_current_wal_lsn``) and keeps it with the
time it was read (``Positions``); the replica's ``pg_last_wal_replay_lsn`` then tells
which of those positions it has replayed. Everything the primary wrote before a
replayed position is visible on the replica, so its lag is at most the age of the
newest replayed position (0 when it replayed the current one: an idle primary, paused
replay or not, never looks late), and at least the age of the oldest position not
replayed (``replay_lag``). The age of the last commit it replayed is a second upper
bound (every commit before it is replayed; it overstates the lag only when the primary
has committed nothing since, where the positions say 0), which decides a process's
first check on a busy primary, before it has positions the replica replayed (it
compares the primary's commit time with the replica's clock: keep the hosts'
clocks in sync). Within the limit: used. Surely past it: skipped for
``DOWN_SECONDS``. Not decidable yet: skipped until the next check,
``LAG_CHECK_SECONDS`` later, which has older positions to go by.
"""

from __future__ import annotations

import contextvars
import logging
import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import HttpRequest, HttpResponse

from catalogue import routing

logger = logging.getLogger("foodservice.ops.replicas")

DOWN_SECONDS = 5.0
LAG_CHECK_SECONDS = 2.0
REPLICA_APPS = frozenset({"catalogue"})
# WAL positions as byte offsets (numeric): the primary's insert position; a replica's
# replayed position (NULL when it is not in recovery, i.e. promoted: no lag).
_PRIMARY_SQL = "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint"
# ... and the age of the last commit it replayed.
_REPLICA_SQL = (
    "SELECT pg_is_in_recovery(), (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint,"
    " EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())"
)
# At most this many primary positions kept (the oldest dropped first).
POSITIONS_KEPT = 512

_reads_allowed: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "replica_reads_allowed", default=False
)


def replica_aliases() -> list[str]:
    return [alias for alias in settings.DATABASES if alias.startswith("replica")]


def replay_lag(
    positions: Sequence[tuple[float, int]], replayed: int, now: float
) -> tuple[float, float]:
    """(at least, at most) seconds a replica that replayed the WAL up to byte
    ``replayed`` is behind its primary, from ``positions``: (time read, primary WAL
    position) pairs, oldest first. At most: the age of the newest position it replayed
    (about 0 when that is the one just read; infinite when none). At least: the age of the
    oldest position it has not replayed (0 when none)."""
    replayed_at = [read_at for read_at, position in positions if position <= replayed]
    waiting_at = [read_at for read_at, position in positions if position > replayed]
    at_most = max(0.0, now - replayed_at[-1]) if replayed_at else math.inf
    at_least = max(0.0, now - waiting_at[0]) if waiting_at else 0.0
    return at_least, at_most


class _Health:
    """Per process: when each replica may be tried again, and its last lag check."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.down_until: dict[str, float] = {}
        self.checked_at: dict[str, float] = {}
        self.positions: deque[tuple[float, int]] = deque(maxlen=POSITIONS_KEPT)

    def mark_down(self, alias: str, reason: str, seconds: float = DOWN_SECONDS) -> None:
        with self.lock:
            self.down_until[alias] = time.monotonic() + seconds
        if seconds >= DOWN_SECONDS:
            logger.warning("replica %s skipped for %.0f s: %s", alias, seconds, reason)

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
        """Read the primary's WAL position, then the replica's replayed one (connecting
        if needed); False when the replica may lag too much or fails (marked down)."""
        try:
            with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
                cursor.execute(_PRIMARY_SQL)
                position = int(cursor.fetchone()[0])
        except Exception:  # the primary is the one in trouble: nothing to decide here
            return False
        now = time.monotonic()
        with self.lock:
            self.positions.append((now, position))
            positions = list(self.positions)
        connection = connections[alias]
        try:
            connection.ensure_connection()
            with connection.connection.cursor() as cursor:  # the raw one: no fallback
                cursor.execute(_REPLICA_SQL)
                in_recovery, replayed, commit_age = cursor.fetchone()
        except Exception as exc:  # any failure: the primary answers instead
            connection.close()
            self.mark_down(alias, type(exc).__name__)
            return False
        if not in_recovery or replayed is None:
            return True
        at_least, at_most = replay_lag(positions, int(replayed), time.monotonic())
        if commit_age is not None:  # also an upper bound (see the module's docstring)
            at_most = min(at_most, max(0.0, float(commit_age)))
        limit = settings.DATABASE_REPLICA_MAX_LAG
        if at_most <= limit:
            return True
        if at_least > limit:
            self.mark_down(alias, f"replay lags more than {at_least:.1f} s")
        else:  # not decidable yet: the next check has an older position to go by
            self.mark_down(alias, "replay lag not known yet", LAG_CHECK_SECONDS)
        return False

    def reset(self) -> None:
        with self.lock:
            self.down_until.clear()
            self.checked_at.clear()
            self.positions.clear()


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
        if model._meta.app_label == "catalogue" and (alias := routing.pinned()):
            return alias  # one database for a budgeted block's reads (catalogue.search.budget)
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
