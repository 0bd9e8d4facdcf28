"""Each worker's memory of the catalogue bytes it served (issue 13; bounded in bytes
and compressed since issue 28.5).

``LocalBytes`` keeps response bytes by key (records by id and market, whole search
pages by path, market and depth, suggestions by ``q`` and market) for one catalogue
version: it reads the version again at most every ``CATALOGUE_VERSION_SECONDS`` (0
turns the memory off) and forgets everything when it changed, so a load is served by
every worker within that long after it commits (catalogue/delivery/rendering.py).

The memory is bounded in bytes, not entries: ``CATALOGUE_MEMORY_MB`` per worker, a
share of it per kind; the oldest entries go first when a new one does not fit. Entries
are kept zlib-compressed (level 1: a 9 KB record becomes ~2 KB in ~0.1 ms, and comes
back in ~15 us), so the same memory holds four to five times as many of them: on
traffic spread over many foods and queries (bench/scripts/reads.py ``--spread``) the share of
reads it answers is what brings a read near the floor (bench/RESULTS.md). The stored
renderings hold records compressed the same way (``pack``), so a record read from the
database is kept as it came (``remember_packed``), with nothing to compress.

An entry is stored only under the version the memory held before its bytes were read
(``put``'s ``version``): bytes read before a load committed never land in a memory
that has already seen that load's version.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Callable, Hashable

from django.conf import settings

# What an entry costs beyond its compressed bytes (the key, the tuple, the dict slot).
ENTRY_OVERHEAD = 200


class LocalBytes:
    """Bytes and ETags this worker served, by key, for one catalogue version (see the
    module docstring), in at most ``share`` of ``CATALOGUE_MEMORY_MB``. Reads of the dict
    are atomic under the GIL; writes and evictions take a lock."""

    def __init__(self, *, share: float, version: Callable[[], int]) -> None:
        self.share = share
        self.read_version = version
        self.entries: dict[Hashable, tuple[bytes, str]] = {}
        self.size = 0  # bytes held, ENTRY_OVERHEAD included
        self.version: int | None = None
        self.checked = float("-inf")
        self.lock = threading.Lock()

    def budget(self) -> int:
        """How many bytes this memory may hold."""
        return int(settings.CATALOGUE_MEMORY_MB * self.share * 2**20)

    def get(self, key: Hashable) -> tuple[bytes, str] | None:
        """The body and ETag kept for ``key``, or None (also when the memory is off)."""
        if not self._current():
            return None
        found = self.entries.get(key)
        if found is None:
            return None
        return zlib.decompress(found[0]), found[1]

    def remember(self, key: Hashable, make: Callable[[], tuple[bytes, str]]) -> tuple[bytes, str]:
        """The body and ETag kept for ``key``, else ``make()``'s, kept under the version
        the memory held before ``make`` read anything (the rule of the module
        docstring, in one place for every caller)."""
        found = self.get(key)
        if found is None:
            version = self.version
            found = make()
            self.put(key, found, version=version)
        return found

    def remember_packed(
        self, key: Hashable, make: Callable[[], tuple[bytes, bytes, str]]
    ) -> tuple[bytes, str, bytes | None]:
        """``remember`` for a ``make`` that returns the body, the body compressed as this
        memory keeps it (``pack``) and the ETag: nothing is compressed here. Returns the
        body, the ETag and, when ``make`` ran, the compressed body (for a copy shared
        with the other workers: catalogue.delivery.shared); None when found here."""
        found = self.get(key)
        if found is not None:
            return found[0], found[1], None
        version = self.version
        body, packed, etag = make()
        self.put_packed(key, (packed, etag), version=version)
        return body, etag, packed

    def holds(self, key: Hashable) -> bool:
        """Whether ``get(key)`` would find bytes (without decompressing them)."""
        return self._current() and key in self.entries

    def version_now(self) -> int | None:
        """The catalogue version this memory holds (read again when due), or None when
        the memory is off: what bytes kept elsewhere for the version are keyed by
        (catalogue.delivery.shared), under the same rule as ``put``'s."""
        return self.version if self._current() else None

    def put(self, key: Hashable, value: tuple[bytes, str], *, version: int | None) -> None:
        """Keep ``value`` (body, ETag) for ``key`` if ``version`` (``self.version``, read
        before the bytes were) is still the memory's version and it fits the budget."""
        if version is None or version != self.version:
            return
        self.put_packed(key, (pack(value[0]), value[1]), version=version)

    def put_packed(self, key: Hashable, packed: tuple[bytes, str], *, version: int | None) -> None:
        """``put`` for a body already compressed as this memory keeps it (``pack``)."""
        if version is None or version != self.version:
            return
        cost = _cost(packed)
        budget = self.budget()
        if cost > budget:
            return
        with self.lock:
            if version != self.version:  # a newer version came in meanwhile
                return
            old = self.entries.pop(key, None)
            if old is not None:
                self.size -= _cost(old)
            while self.entries and self.size + cost > budget:
                oldest = next(iter(self.entries))
                self.size -= _cost(self.entries.pop(oldest))
            self.entries[key] = packed
            self.size += cost

    def clear(self) -> None:
        with self.lock:
            self.entries, self.size = {}, 0
            self.version, self.checked = None, float("-inf")

    def _current(self) -> bool:
        """Whether the memory may be used: the version was read less than
        ``CATALOGUE_VERSION_SECONDS`` ago (read again, and the memory emptied when it
        changed, otherwise)."""
        seconds = settings.CATALOGUE_VERSION_SECONDS
        if seconds <= 0:
            if self.version is not None or self.entries:
                self.clear()
            return False
        now = time.monotonic()
        if now - self.checked >= seconds:
            version = self.read_version()
            with self.lock:
                if version != self.version:
                    self.entries, self.size = {}, 0
                self.version, self.checked = version, now
        return True


def pack(body: bytes) -> bytes:
    """``body`` compressed as this memory keeps it, as the stored renderings hold it
    (catalogue.delivery.rendering) and as a copy shared through Redis carries it: zlib,
    level 1. ``zlib.decompress`` gives the body back."""
    return zlib.compress(body, 1)


def _cost(entry: tuple[bytes, str]) -> int:
    return len(entry[0]) + len(entry[1]) + ENTRY_OVERHEAD
