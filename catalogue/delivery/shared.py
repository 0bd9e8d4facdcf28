"""Food records (issue 28.5) and search pages (issue 41.1) shared by every worker
through Redis, read in the meter's round trip.

A worker's memory (catalogue.delivery.memory) holds the records it served; on traffic spread
over many foods most reads miss it, and a miss cost two round trips: the meter's
script on Redis, then the record's query on PostgreSQL. Here a record read from the
database is also kept in Redis for ``CATALOGUE_SHARED_SECONDS``, and the record view
asks the meter to read it in the same pipeline as its decision
(``MeteredAPIView.meter_carry``): a record any worker on any host read lately costs
the request no query and no round trip of its own. Search pages (``GET /v1/foods``)
are shared the same way (``page_carry``, ``food_page``): a new search costs ~10 ms of
Python and PostgreSQL, a page another worker answered lately one value read in the
meter's pipeline.

- **Never stale.** The key holds the catalogue version the worker's memory holds
  (``LocalBytes.version_now``, read again at most every ``CATALOGUE_VERSION_SECONDS``)
  and the rendering format, and a value is stored under the version read *before* its
  bytes were (the rule of catalogue.delivery.memory): bytes kept under version V were read at V
  or later, and a load's new version names new keys. Old versions' keys expire.
- **Scoped.** The key holds the caller's market (``*``: every market), so a Taster in
  one market never reads a record found in another; a page's key also holds the
  caller's depth (Taster's 1,000 rows, ``*`` unlimited) and a digest of its path with
  every parameter (q as searched), as the worker memory's key does.
- **Best effort.** A value that does not decode is ignored, and a failed write is
  logged and forgotten: the database answers as before. Off (no key asked) when the
  worker memory is off, when ``CATALOGUE_SHARED_SECONDS`` is 0, and without Redis (the
  embedded default).
- **Written off the request's path** (issue 41.2, ``SharedWrites``): a copy goes to a
  thread of the worker, which sets what it gathered in one pipeline
  ``CATALOGUE_SHARE_WRITE_SECONDS`` later; a record's first read then costs one round
  trip beyond the meter (its query), not two.
- **On a Redis Cluster too** (issue 41.1). A cluster runs no script in a pipeline, and a
  shared copy's key lies in another slot than the account's: there the meter reads the
  copy with a ``GET`` of its own after its script (metering/backends.py), a second round
  trip, which still spares the query.

A value is the ETag, a newline, and the body compressed as the worker memory keeps it
(zlib level 1): a hit goes into that memory without compressing again, and a miss
shares the bytes it already had compressed (a record as stored, a page as its memory
keeps it: issue 41.2).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
import zlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from django.conf import settings

from catalogue.delivery import rendering
from catalogue.delivery.memory import pack

logger = logging.getLogger("foodservice.catalogue")


@dataclass(frozen=True, slots=True)
class Carry:
    """A shared record's Redis key and the catalogue version it is kept under."""

    key: str
    version: int


def record_carry(*, public_id: str, market: str | None) -> Carry | None:
    """Where the shared copy of ``public_id``'s record for ``market`` is, or None when
    records are not shared (see the module)."""
    if settings.CATALOGUE_SHARED_SECONDS <= 0:
        return None
    version = rendering.local_records.version_now()
    if version is None:
        return None
    key = (
        f"{settings.REDIS_KEY_PREFIX}:record:{rendering.render_format()}:{version}:"
        f"{market or '*'}:{public_id}"
    )
    return Carry(key, version)


def food_record(
    *, public_id: str, market: str | None, carry: Carry | None, carried: bytes | None
) -> tuple[bytes, str]:
    """``rendering.food_record``, answered from ``carried`` (the shared copy the meter
    read at ``carry``) when there is one; else read, and shared under ``carry``."""
    found = None if carried is None else _unpack(carried)
    if carry is not None and found is not None:
        body, packed_body, etag = found
        rendering.local_records.put_packed(
            (public_id, market), (packed_body, etag), version=carry.version
        )
        return body, etag
    body, etag, packed = rendering.food_record_read(public_id=public_id, market=market)
    if carry is not None and packed is not None:
        _share(carry, packed, etag)
    return body, etag


def page_carry(*, path: str, market: str | None, depth: int | None) -> Carry | None:
    """Where the shared copy of the search page at ``path`` (its query included) for
    ``market`` and ``depth`` is, or None when pages are not shared (see the module)."""
    if settings.CATALOGUE_SHARED_SECONDS <= 0:
        return None
    version = rendering.local_pages.version_now()
    if version is None:
        return None
    digest = hashlib.blake2b(path.encode(), digest_size=16).hexdigest()
    key = (
        f"{settings.REDIS_KEY_PREFIX}:page:{rendering.render_format()}:{version}:"
        f"{market or '*'}:{'*' if depth is None else depth}:{digest}"
    )
    return Carry(key, version)


def food_page(
    *,
    key: Hashable,
    carry: Carry | None,
    carried: bytes | None,
    make: Callable[[], tuple[bytes, str]],
) -> tuple[bytes, str]:
    """The page kept in this worker's memory under ``key``, else the shared copy the
    meter read at ``carry`` (``carried``), else ``make()``'s, kept in both."""
    found = None if carried is None else _unpack(carried)
    if carry is not None and found is not None:
        body, packed_body, etag = found
        rendering.local_pages.put_packed(key, (packed_body, etag), version=carry.version)
        return body, etag
    if carry is None:  # nothing to share: compressed only if this memory keeps it
        return rendering.local_pages.remember(key, make)
    body, etag, packed = rendering.local_pages.remember_packed(key, lambda: _made(make()))
    if packed is not None:
        _share(carry, packed, etag)
    return body, etag


def _made(made: tuple[bytes, str]) -> tuple[bytes, bytes, str]:
    """A page's body and ETag, and the body compressed once for both copies: this
    worker's memory and the shared one."""
    body, etag = made
    return body, pack(body), etag


def _unpack(value: bytes) -> tuple[bytes, bytes, str] | None:
    """(body, compressed body, ETag) of a shared value, or None if it is not one."""
    etag, newline, packed_body = value.partition(b"\n")
    if not newline or not etag.startswith(b'"') or not etag.isascii():
        return None
    try:
        return zlib.decompress(packed_body), packed_body, etag.decode("ascii")
    except zlib.error:
        return None


def _share(carry: Carry, packed: bytes, etag: str) -> None:
    """Share a body compressed as it is kept (``pack``) under ``carry``."""
    value = etag.encode() + b"\n" + packed
    if settings.CATALOGUE_SHARE_WRITE_SECONDS > 0:
        writes.put(carry.key, value)
    else:
        _set_all({carry.key: value})


def _set_all(values: dict[str, bytes]) -> None:
    """Set ``values`` in Redis for ``CATALOGUE_SHARED_SECONDS``, in one pipeline; a
    failure is logged and forgotten (the database answers as before)."""
    from django_redis import get_redis_connection

    from core.redis import UNREACHABLE

    ttl = max(1, int(settings.CATALOGUE_SHARED_SECONDS))
    try:
        pipe = get_redis_connection("default").pipeline(transaction=False)
        for key, value in values.items():
            pipe.set(key, value, ex=ttl)
        pipe.execute()
    except UNREACHABLE as exc:
        logger.warning("%d record(s) or page(s) not shared through Redis: %s", len(values), exc)


# At most this many copies wait for the writer: past it a copy is not shared (a worker
# whose Redis is slow keeps bounded memory; the database answers those reads).
MAX_PENDING = 2000


class SharedWrites:
    """Copies to share, set by a daemon thread of this worker ``CATALOGUE_SHARE_WRITE_SECONDS``
    after the first of them came, all in one pipeline (issue 41.2): off the request's
    path. Started on first use, after a pre-forking server's fork; ``drain`` writes
    what waits at once (the tests, a stop)."""

    def __init__(self) -> None:
        self._pending: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def put(self, key: str, value: bytes) -> None:
        with self._lock:
            if len(self._pending) >= MAX_PENDING and key not in self._pending:
                return
            self._pending[key] = value
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="shared-writes", daemon=True)
                self._thread.start()
        self._wake.set()

    def pending(self) -> list[str]:
        with self._lock:
            return list(self._pending)

    def drain(self) -> int:
        """Write what waits now; returns how many copies."""
        with self._lock:
            values, self._pending = self._pending, {}
        if values:
            _set_all(values)
        return len(values)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            time.sleep(settings.CATALOGUE_SHARE_WRITE_SECONDS)
            try:
                self.drain()
            except Exception:  # the thread outlives any failure; the copies are lost
                logger.exception("shared copies not written")

    def reset(self) -> None:
        """After a fork: the parent's thread and lock do not exist in the child."""
        self._pending, self._lock = {}, threading.Lock()
        self._wake, self._thread = threading.Event(), None


writes = SharedWrites()
os.register_at_fork(after_in_child=writes.reset)
