"""Which database a raw SQL catalogue read runs on.

The project's ``ReplicaRouter`` (``foodservice/ops/replicas.py``, installed only when read
replicas are configured) routes model reads; a raw SQL read asks Django's router the
same question for ``Food``, so it goes where a model read would: a healthy replica
during a GET or HEAD, the primary otherwise.

``pinned_reads(alias)`` keeps every catalogue read of a block on one database (the
router asks ``pinned()`` first): a time budget's statement timeout is set in one
transaction on one database (catalogue.search.budget), and a replica picked per query would
read some of the block's rows outside it."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from django.db import router

from catalogue.models import Food

_pinned: contextvars.ContextVar[str | None] = contextvars.ContextVar("pinned", default=None)


def catalogue_read_alias() -> str:
    """The alias a raw SQL catalogue read uses (as the router would route a model)."""
    return _pinned.get() or router.db_for_read(Food)


def pinned() -> str | None:
    """The alias every catalogue read of the running block uses, or None."""
    return _pinned.get()


@contextlib.contextmanager
def pinned_reads(alias: str) -> Iterator[None]:
    """Every catalogue read inside the block (raw SQL here, model reads through the
    router) runs on ``alias``."""
    token = _pinned.set(alias)
    try:
        yield
    finally:
        _pinned.reset(token)
