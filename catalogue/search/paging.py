"""Paging of food lists (docs/catalogue.md, "Paging"): page numbers near the top, keyset cursors
deeper down.

A cursor is a signed token holding the offset of the page, the sort key of the row
before it (for keyset paging), the fingerprint of the search that issued it and that
search's parameters. It is signed so that it cannot be forged: the offset it claims is
what the Taster depth cap (spec 8.2) is checked against, and the key is fed back into a
query. It is deterministic (issue 14.2): no timestamp, so the same page of the same
catalogue links to the same cursor, and its bytes and ETag stay the same whenever it is
asked for. It carries its search (issue 14.3), so ``?cursor=...`` alone is enough.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.core import signing

from core.problems import InvalidParameter

_SALT = "catalogue.cursor"


@dataclass(frozen=True, slots=True)
class Position:
    """Where a page starts: ``offset`` rows into the list, and when known the sort
    ``key`` of the row just before it (so the query seeks instead of skipping)."""

    offset: int
    key: tuple[Any, ...] | None = None


def cursor_dumps(
    position: Position, *, fingerprint: str, search: Sequence[tuple[str, str]] = ()
) -> str:
    """The cursor of ``position`` in the search ``search`` (its query parameters, paging
    ones excluded) whose fingerprint is ``fingerprint``. The same arguments give the same
    token, on every worker and whenever asked: a plain ``Signer``, not ``signing.dumps``,
    whose timestamp changed the token every second."""
    payload = {"o": position.offset, "k": position.key, "f": fingerprint, "s": list(search)}
    return signing.Signer(salt=_SALT).sign_object(payload, compress=True)


def _payload(token: str) -> dict[str, Any]:
    try:
        payload = signing.Signer(salt=_SALT).unsign_object(token)
    except (signing.BadSignature, ValueError):
        raise InvalidParameter("cursor", "Not a cursor this service issued.") from None
    if not isinstance(payload, dict):
        raise InvalidParameter("cursor", "Not a cursor this service issued.")
    return payload


def cursor_loads(token: str, *, fingerprint: str) -> Position:
    """The position in ``token``; ``InvalidParameter("cursor")`` when it was tampered
    with, is malformed, or belongs to another search."""
    payload = _payload(token)
    if payload.get("f") != fingerprint:
        raise InvalidParameter("cursor", "The cursor belongs to another search; start over.")
    key = payload.get("k")
    return Position(offset=int(payload["o"]), key=tuple(key) if key is not None else None)


def with_cursor_search(params: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """The parameters of the search a request asks for (issue 14.3): ``params`` as given,
    completed, when they hold a cursor, by the parameters of the search the cursor was
    issued for. So ``?cursor=...`` alone reads the same page as ``links.next``; a
    parameter given with the cursor wins, and the fingerprint check of ``cursor_loads``
    refuses the cursor when the search it then describes is another one.
    ``InvalidParameter("cursor")`` for a cursor this service did not issue."""
    given = {name: list(values) for name, values in params.items()}
    tokens = given.get("cursor", [])
    if len(tokens) != 1 or not tokens[0].strip():
        return given  # no cursor, or a malformed one the parser names
    search = _payload(tokens[0].strip()).get("s") or []
    merged = {str(name): [str(value)] for name, value in search if name not in given}
    return merged | given


def position_for(*, page: int | None, cursor: str, page_size: int, fingerprint: str) -> Position:
    if cursor:
        return cursor_loads(cursor, fingerprint=fingerprint)
    return Position(offset=((page or 1) - 1) * page_size)
