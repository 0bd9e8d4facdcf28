"""Paging of food lists (docs/catalogue.md, "Paging"): page numbers near the top, keyset cursors
deeper down.

A cursor is a signed token holding the offset of the page, the sort key of the row
before it (for keyset paging) and the fingerprint of the search that issued it. It is
signed so that it cannot be forged: the offset it claims is what the Taster depth cap
(spec 8.2) is checked against, and the key is fed back into a query.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core import signing

from foodservice.problems import InvalidParameter

_SALT = "catalogue.cursor"


@dataclass(frozen=True, slots=True)
class Position:
    """Where a page starts: ``offset`` rows into the list, and when known the sort
    ``key`` of the row just before it (so the query seeks instead of skipping)."""

    offset: int
    key: tuple[Any, ...] | None = None


def cursor_dumps(position: Position, *, fingerprint: str) -> str:
    payload = {"o": position.offset, "k": position.key, "f": fingerprint}
    return signing.dumps(payload, salt=_SALT, compress=True)


def cursor_loads(token: str, *, fingerprint: str) -> Position:
    """The position in ``token``; ``InvalidParameter("cursor")`` when it was tampered
    with, is malformed, or belongs to another search."""
    try:
        payload = signing.loads(token, salt=_SALT)
    except signing.BadSignature:
        raise InvalidParameter("cursor", "Not a cursor this service issued.") from None
    if not isinstance(payload, dict) or payload.get("f") != fingerprint:
        raise InvalidParameter("cursor", "The cursor belongs to another search; start over.")
    key = payload.get("k")
    return Position(offset=int(payload["o"]), key=tuple(key) if key is not None else None)


def position_for(*, page: int | None, cursor: str, page_size: int, fingerprint: str) -> Position:
    if cursor:
        return cursor_loads(cursor, fingerprint=fingerprint)
    return Position(offset=((page or 1) - 1) * page_size)
