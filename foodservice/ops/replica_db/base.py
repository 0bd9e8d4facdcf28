"""PostgreSQL, plus: a replica that cannot be reached or fails a query mid-request is
marked down (``foodservice.ops.replicas``) and the query runs on the primary instead, so a
replica never makes a request fail. Only reads ever come here (the router sends every
write to the primary)."""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS, OperationalError, connections
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper

from foodservice.ops.postgresql import base
from foodservice.ops.replicas import health


class _Fallback:
    """Runs ``execute`` on the replica, and on an ``OperationalError`` (connection lost,
    recovery conflict) on the primary, whose cursor then answers the fetches."""

    db: Any
    cursor: Any

    def execute(self, sql: str, params: Any = None) -> Any:
        try:
            return super().execute(sql, params)  # type: ignore[misc]
        except OperationalError as exc:
            if self.db.alias == DEFAULT_DB_ALIAS:
                raise
            _to_primary(self, exc)
            return super().execute(sql, params)  # type: ignore[misc]


def _to_primary(wrapper: Any, exc: BaseException) -> None:
    health.mark_down(wrapper.db.alias, type(exc).__name__)
    primary = connections[DEFAULT_DB_ALIAS]
    wrapper.cursor = primary.cursor().cursor
    wrapper.db = primary


class FallbackCursorWrapper(_Fallback, CursorWrapper):
    pass


class FallbackCursorDebugWrapper(_Fallback, CursorDebugWrapper):
    pass


class DatabaseWrapper(base.DatabaseWrapper):
    def cursor(self) -> Any:
        try:
            return super().cursor()
        except OperationalError as exc:  # cannot connect
            health.mark_down(self.alias, type(exc).__name__)
            return connections[DEFAULT_DB_ALIAS].cursor()

    def make_cursor(self, cursor: Any) -> CursorWrapper:
        return FallbackCursorWrapper(cursor, self)

    def make_debug_cursor(self, cursor: Any) -> CursorWrapper:
        return FallbackCursorDebugWrapper(cursor, self)
