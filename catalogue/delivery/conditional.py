"""Conditional GET for catalogue reads (issue 3, point 4). Pure: no request objects.

Done inside the views instead of Django's ConditionalGetMiddleware, so a 304 still
passes through the metered view and carries the metering headers (spec 8.1: a 304
counts like a 200).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

# Clients may reuse a page for a minute without asking, then revalidate with the ETag.
CACHE_CONTROL = "private, max-age=60"
# The body depends on the key's account (tier, market).
VARY = ("X-API-Key", "Authorization")


def etag_for(representation: Any) -> str:
    """A strong tag computed from the representation only: the same body gives the same
    tag on every worker and across restarts."""
    body = json.dumps(representation, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return '"' + hashlib.sha256(body.encode()).hexdigest()[:32] + '"'


def etag_of_bytes(body: bytes) -> str:
    """A strong tag of a body sent as is (a search page assembled from pre-rendered
    parts): the same bytes give the same tag on every worker and across restarts."""
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def parse_if_none_match(header: str) -> list[str]:
    """The entity tags of an ``If-None-Match`` header, in order; ``["*"]`` for ``*``.
    Tags keep their quotes and lose a ``W/`` prefix (If-None-Match compares weakly,
    RFC 9110 13.1.2). Garbage between tags is ignored."""
    tags: list[str] = []
    rest = header.strip()
    if rest == "*":
        return ["*"]
    while rest:
        rest = rest.lstrip(" \t,")
        if rest.startswith("W/"):
            rest = rest[2:]
        if not rest.startswith('"'):
            rest = rest.partition(",")[2]
            continue
        end = rest.find('"', 1)
        if end == -1:
            break
        tags.append(rest[: end + 1])
        rest = rest[end + 1 :]
    return tags


def is_not_modified(*, if_none_match: str | None, etag: str) -> bool:
    """True when the client's cached copy (``If-None-Match``) is still ``etag``."""
    if not if_none_match:
        return False
    tags = parse_if_none_match(if_none_match)
    return "*" in tags or etag.removeprefix("W/") in tags
