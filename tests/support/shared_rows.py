"""Rows made once for several tests: a loaded catalogue costs seconds (minutes on a busy
PostgreSQL) and several tests only read it.

``shared_rows`` makes the rows inside a transaction of its own and keeps that
transaction open while the tests run: each test's own transaction (pytest-django's
``db``) is then a savepoint inside it, so whatever a test writes is rolled back at its
end as before, and the shared rows are rolled back when the fixture ends. A test that
uses them must be an ordinary ``db`` test (not ``transaction=True``, not ``live_server``:
those commit and flush, and a server process could not see uncommitted rows anyway).

Use it from a fixture of ``scope="class"`` requested only by the tests of one class, or
of ``scope="module"`` when every test of the module that touches the database requests
it (docs/development.md, "Rows shared by several tests"): the rows live until the scope
ends, so any other test running in that scope meanwhile would see them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from django.db import transaction
from pytest_django import DjangoDbBlocker

T = TypeVar("T")


def shared_rows(blocker: DjangoDbBlocker, make: Callable[[], T]) -> Iterator[T]:
    """Yield ``make()``'s result, its rows kept (uncommitted) until the generator ends;
    a fixture body: ``yield from shared_rows(django_db_blocker, load)``."""
    with blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            made = make()
        except BaseException:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            raise
    try:
        yield made
    finally:
        with blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
