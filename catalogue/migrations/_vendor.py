"""A migration step for PostgreSQL only (0016, 0018): SQLite has neither the index
method nor the storage parameters those steps set."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def on_postgresql(sql: str) -> Callable[[Any, Any], None]:
    """A ``RunPython`` function that executes ``sql`` on PostgreSQL and nothing
    elsewhere."""

    def run(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run
