"""Health endpoints for load balancers and orchestrators (issue 7.2).

- ``GET /healthz``: liveness. The process answers; no I/O at all.
- ``GET /readyz``: readiness. The database answers ``SELECT 1``, Redis answers ``PING``
  (only when ``REDIS_URL`` is set) and no migration is left unapplied. 200 when all
  hold, else 503 naming each check's state::

      {"status": "unavailable", "checks": {"database": "ok", "redis": "down",
                                           "migrations": "ok"}}

Both are plain Django views outside /v1: no API key, never metered, JSON. The migration
check reads every migration file, so its answer is kept for ``MIGRATIONS_TTL_SECONDS``
per process; the database and Redis are asked on every call (one round trip each,
bounded by their connect and socket timeouts).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from core import metrics

logger = logging.getLogger("foodservice.ops.health")

MIGRATIONS_TTL_SECONDS = 30.0
OK, DOWN, PENDING, UNKNOWN, NOT_CONFIGURED = "ok", "down", "pending", "unknown", "not-configured"


@dataclass(slots=True)
class TimedAnswer:
    """A boolean answer kept for ``ttl`` seconds: ``get(compute, now=...)`` calls
    ``compute`` only when the kept answer is older than ``ttl``. Thread-safe."""

    ttl: float
    value: bool | None = None
    at: float = float("-inf")
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, compute: Callable[[], bool], *, now: float) -> bool:
        with self.lock:
            if self.value is None or now - self.at >= self.ttl:
                self.value, self.at = compute(), now
            return self.value

    def clear(self) -> None:
        with self.lock:
            self.value, self.at = None, float("-inf")


_migrations_applied = TimedAnswer(ttl=MIGRATIONS_TTL_SECONDS)


def database_ok() -> bool:
    """``SELECT 1`` on the default database; a broken connection is closed so the next
    request reconnects."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.warning("readyz: database unreachable")
        connection.close_if_unusable_or_obsolete()
        return False
    return True


def redis_state() -> str:
    """``ok`` / ``down``, or ``not-configured`` on the embedded default."""
    if not settings.REDIS_URL:
        return NOT_CONFIGURED
    from django_redis import get_redis_connection
    from redis.exceptions import RedisError

    try:
        get_redis_connection("default").ping()
    except (RedisError, OSError):
        logger.warning("readyz: redis unreachable")
        metrics.redis_error(component="readyz")
        return DOWN
    return OK


def migrations_applied() -> bool:
    """True when no migration on disk is missing from the database."""
    executor = MigrationExecutor(connection)
    return not executor.migration_plan(executor.loader.graph.leaf_nodes())


def readiness() -> dict[str, str]:
    """Each check's state. Migrations are not asked while the database is down."""
    db = database_ok()
    migrations = UNKNOWN
    if db:
        try:
            applied = _migrations_applied.get(migrations_applied, now=time.monotonic())
            migrations = OK if applied else PENDING
        except DatabaseError:
            db = False
    return {"database": OK if db else DOWN, "redis": redis_state(), "migrations": migrations}


def is_ready(checks: dict[str, str]) -> bool:
    return all(state in (OK, NOT_CONFIGURED) for state in checks.values())


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness: 200 ``{"status": "ok"}`` while the process can answer."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness: 200 ``{"status": "ready", "checks": ...}`` or 503 ``"unavailable"``."""
    checks = readiness()
    if is_ready(checks):
        return JsonResponse({"status": "ready", "checks": checks})
    response = JsonResponse({"status": "unavailable", "checks": checks}, status=503)
    response["Retry-After"] = "5"
    return response
