"""Prepared statements for the raw statements every read runs (issue 41.1, 41.2).

Django's PostgreSQL backend binds parameters on the client and never prepares (its
default keeps connection poolers working), so PostgreSQL parses and plans each
statement again: for the primary-key read of a stored record that is ~0.25 ms of its
CPU against ~0.13 ms prepared (bench/RESULTS.md, "Prepared statements for the raw
reads"). ``prepared_cursor`` gives a Django cursor (the same wrappers: debug
capture, a replica's fallback, Django's exceptions) whose statements are bound on the
server and prepared on first use, kept by psycopg per connection (its 100 most recent).

Prepared statements are on when the database's ``OPTIONS`` carry a ``prepare_threshold``
(foodservice/settings.py sets it for PostgreSQL unless ``DATABASE_PGBOUNCER``: a pooler
in transaction mode hands each transaction another server connection, which would not
hold the statement); elsewhere, and on SQLite, the cursor is the ordinary one. The ORM
keeps Django's client-side binding either way: only the statements run through this
cursor are prepared.
"""

from __future__ import annotations

import functools
from typing import Any

from django.db import connections
from django.db.backends.utils import CursorWrapper


def prepared_cursor(alias: str) -> CursorWrapper:
    """A cursor of ``connections[alias]`` whose statements PostgreSQL prepares (the
    module docstring); an ordinary cursor where prepared statements are off."""
    db = connections[alias]
    wrapper = db.cursor()
    if db.vendor != "postgresql" or db.settings_dict["OPTIONS"].get("prepare_threshold") is None:
        return wrapper
    if wrapper.db is not db:  # a replica's cursor fell back to the primary as it opened
        return wrapper
    inner = wrapper.cursor
    preparing, shown = _cursor_classes()
    wrapper.cursor = (shown if db.queries_logged else preparing)(inner.connection)
    inner.close()
    return wrapper


@functools.cache
def _cursor_classes() -> tuple[Any, Any]:
    """psycopg's server-binding cursor as Django's backend defines it, preparing every
    statement it executes; and the same for a connection whose queries are logged
    (``CaptureQueriesContext``, ``DEBUG``), which also keeps each statement's text with
    its values for the log, as Django's client-side cursor does. Made on first use: the
    module imports no driver."""
    from django.db.backends.postgresql.base import ServerBindingCursor
    from psycopg import ClientCursor

    class PreparingCursor(ServerBindingCursor):
        def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
            kwargs["prepare"] = True
            return super().execute(query, params, **kwargs)

    class ShownPreparingCursor(PreparingCursor):
        def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
            done = super().execute(query, params, **kwargs)
            text = ClientCursor(self.connection).mogrify(query, params)
            self._query = _Shown(text.encode())
            return done

    return PreparingCursor, ShownPreparingCursor


class _Shown:
    """What Django's query log reads of a psycopg cursor: ``_query.query``."""

    __slots__ = ("query",)

    def __init__(self, query: bytes) -> None:
        self.query = query
