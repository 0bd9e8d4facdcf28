"""Writes parsed records into the catalogue: in bulk, idempotently, within the caller's
transaction.

Each batch looks up which of its ids exist and with which content hash, then inserts
the new rows (PostgreSQL: ``COPY``; elsewhere: ``bulk_create``), updates the changed
ones and leaves equal ones alone. A re-run therefore updates and never duplicates, and
re-running an unchanged source writes nothing.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from multiprocessing.pool import AsyncResult, Pool
from typing import Any

import orjson
from django.db import connection
from psycopg.copy import Copy, QueuedLibpqWriter

from catalogue.importers import encoding
from catalogue.importers.changes import Changes
from catalogue.importers.records import FoodRecord, NutrientDef
from catalogue.models import MARKET_NAMES, Category, Food, Market, Nutrient
from catalogue.search import text

BATCH_SIZE = 2000
# Batches a pool may hold beyond the one being copied (``Writer(pool=...)``).
ENCODING_AHEAD = 4
# Foods a fresh load writes in its own process before it starts the pool: a small load
# (SR28's 8,789, IFCT's 542, the tests') would spend more forking it than it saves.
POOL_FROM = 20_000
_SKIP_ON_UPDATE = {"public_id", "source", "source_id"}


class Writer:
    """``add()`` records, then ``flush()``; ``counts`` holds inserted/updated/unchanged."""

    def __init__(
        self,
        *,
        batch_size: int | None = None,
        fresh: bool = False,
        changes: Changes | None = None,
        pool: Callable[[], Pool] | None = None,
    ) -> None:
        """``fresh``: the table held no foods when the load began, so every id is new
        (the parsers drop repeated ids) and batches skip the look-up of existing rows.
        ``changes``: the load's bookkeeping, told of every food before it is updated.
        ``pool``: gives the processes that turn a fresh load's records into ``COPY``
        rows (PostgreSQL) once it has written ``POOL_FROM`` foods, while this one reads
        the next ones and copies: see ``encoding``."""
        self.batch_size = batch_size or BATCH_SIZE
        self.fresh = fresh
        self.changes = changes
        self.pool_of = pool if fresh and connection.vendor == "postgresql" else None
        self.pool: Pool | None = None
        # Batches handed to the pool, oldest first, with their rows to come.
        self._encoding: deque[tuple[list[FoodRecord], AsyncResult[list[bytes]]]] = deque()
        # The pool's rows go into one COPY, open until a query must run (``_end_copy``).
        self._copy: tuple[ExitStack, Copy] | None = None
        self.seconds = 0.0  # spent writing (flush), for the progress report
        self.counts: Counter[str] = Counter()
        self._batch: list[FoodRecord] = []
        self._written = 0  # records written by this process (not the pool)
        self._categories = dict(Category.objects.values_list("slug", "id"))
        self._category_names: dict[str, int] = {}  # each name's id, once looked up
        self._markets = set(Market.objects.values_list("code", flat=True))

    def nutrients(self, defs: list[NutrientDef], *, authoritative: bool) -> None:
        """Creates the nutrients ``defs`` names. ``authoritative`` (SR28's NUTR_DEF)
        also rewrites names, units and order; otherwise only missing facts are added."""
        existing = {n.id: n for n in Nutrient.objects.all()}
        # The new ones in one INSERT: one each was half of a small load's time.
        new: dict[int, Nutrient] = {}
        for position, d in enumerate(defs):
            current = existing.get(d.id)
            if current is None:
                if d.id not in new:
                    new[d.id] = Nutrient(
                        id=d.id, number=d.number, fdc_id=d.fdc_id, name=d.name, unit=d.unit,
                        tag=d.tag, rank=d.rank or 100_000 + position,
                    )  # fmt: skip
            elif authoritative and (
                current.number,
                current.name,
                current.unit,
                current.tag,
                current.rank,
            ) != (d.number, d.name, d.unit, d.tag, d.rank):
                # Only when it differs: a nutrient's change makes every rendering stale.
                Nutrient.objects.filter(id=d.id).update(
                    number=d.number, name=d.name, unit=d.unit, tag=d.tag, rank=d.rank
                )
            elif current.fdc_id is None and d.fdc_id is not None:
                Nutrient.objects.filter(id=d.id).update(fdc_id=d.fdc_id)
        Nutrient.objects.bulk_create(new.values())

    def add(self, record: FoodRecord) -> None:
        self._batch.append(record)
        if len(self._batch) >= self.batch_size:
            self._write()

    def flush(self) -> None:
        """Writes every record added so far (with a pool: once it has encoded them)."""
        self._write(wait=True)
        self._end_copy()

    def abort(self, error: BaseException) -> None:
        """Ends an open ``COPY`` with ``error``, so the load's rollback finds the
        connection idle."""
        self._end_copy(error)

    def _write(self, *, wait: bool = False) -> None:
        started = time.monotonic()
        try:
            if self.pool is None and self.pool_of is not None and self._written >= POOL_FROM:
                self.pool = self.pool_of()  # every batch before it is written: order holds
            if self.pool is None:
                self._flush()
            else:
                self._flush_encoded(wait=wait)
        finally:
            self.seconds += time.monotonic() - started

    def _flush_encoded(self, *, wait: bool) -> None:
        """Hands the batch to the pool, then copies the batches encoded so far in
        order, keeping at most ``ENCODING_AHEAD`` in the pool (all when ``wait``)."""
        if self._batch:
            batch, self._batch = self._batch, []
            assert self.pool is not None
            self._encoding.append((batch, self.pool.apply_async(encoding.encode, (batch,))))
        while self._encoding and (
            wait or len(self._encoding) > ENCODING_AHEAD or self._encoding[0][1].ready()
        ):
            batch, result = self._encoding.popleft()
            rows = result.get()
            tails = []
            for record in batch:
                if self._copy is not None and not self._known(record):
                    self._end_copy()  # a category or market to create: a query
                category = self._category_id(record)
                self._market(record.market)
                tails.append(b"\t%s\n" % (b"\\N" if category is None else b"%d" % category))
            self._copying().write(
                b"".join(row + tail for row, tail in zip(rows, tails, strict=True))
            )
            self.counts["inserted"] += len(batch)

    def _copying(self) -> Copy:
        """The open ``COPY`` of encoded rows, opened if none is. One ``COPY`` for many
        batches, written by psycopg's queued writer (a thread sends the rows), lets
        this process go on parsing while the server stores them: a ``COPY`` per
        batch waited for the server at each batch's end (15 of the FDC table's 35 s,
        issue 41.3). What a slower server leaves unsent is bounded by psycopg's queue
        (1,024 chunks of at most 128 KB): past it, ``write`` waits."""
        if self._copy is None:
            stack = ExitStack()
            cursor = stack.enter_context(connection.cursor()).cursor
            copy = stack.enter_context(cursor.copy(_COPY, writer=QueuedLibpqWriter(cursor)))
            self._copy = (stack, copy)
        return self._copy[1]

    def _end_copy(self, error: BaseException | None = None) -> None:
        """Ends the open ``COPY``, if any: waits for the server to store its rows, or,
        given the ``error`` the load failed with, cancels it with that."""
        if self._copy is None:
            return
        stack, _ = self._copy
        self._copy = None
        if error is None:
            stack.close()
        else:
            stack.__exit__(type(error), error, error.__traceback__)

    def _known(self, record: FoodRecord) -> bool:
        """Whether ``record``'s category and market exist (writing it runs no query)."""
        return record.market in self._markets and (
            not record.category_name or record.category_name in self._category_names
        )

    def _flush(self) -> None:
        batch, self._batch = self._batch, []
        if not batch:
            return
        existing = {}
        if not self.fresh:
            existing = {
                public_id: (pk, content_hash)
                for public_id, pk, content_hash in Food.objects.filter(
                    public_id__in=[r.public_id for r in batch]
                ).values_list("public_id", "id", "content_hash")
            }
        new: list[tuple[FoodRecord, int | None, str]] = []
        changed: list[Food] = []
        for record in batch:
            category = self._category_id(record)  # before the COPY: it may create one
            self._market(record.market)
            digest = record.content_hash()
            found = existing.get(record.public_id)
            if found is None:
                new.append((record, category, digest))
            elif found[1] != digest:
                row = record.columns(content_hash=digest) | {"category_id": category}
                changed.append(Food(id=found[0], **row))
        self._insert(new)
        if changed:
            if self.changes is not None:
                self.changes.snapshot([food.id for food in changed])
            fields = [c for c in _COLUMNS if c not in _SKIP_ON_UPDATE]
            Food.objects.bulk_update(changed, fields, batch_size=500)
        self._written += len(batch)
        self.counts["inserted"] += len(new)
        self.counts["updated"] += len(changed)
        self.counts["unchanged"] += len(batch) - len(new) - len(changed)

    def _insert(self, new: list[tuple[FoodRecord, int | None, str]]) -> None:
        """Inserts the ``new`` (record, category id, content hash) rows. On PostgreSQL
        each row's columns are computed as it is written into one ``COPY``, so the
        server stores the rows sent while this process computes the next ones: the
        two CPUs work at once (computing a batch first and copying it after left one
        idle at a time: 96 s against 84 s for the FDC table's read, issue 41.3)."""
        if not new:
            return
        if connection.vendor != "postgresql":
            rows = [_row(*item) for item in new]
            Food.objects.bulk_create([Food(**row) for row in rows], batch_size=500)
            return
        with connection.cursor() as cursor, cursor.cursor.copy(_COPY) as copy:
            for item in new:
                row = _row(*item)
                copy.write_row([_copy_value(row[c]) for c in _COLUMNS])

    def _category_id(self, record: FoodRecord) -> int | None:
        name = record.category_name
        if not name:
            return None
        found = self._category_names.get(name)
        if found is not None:
            return found
        slug = text.slugify_name(name)
        if slug not in self._categories:
            category, _ = Category.objects.get_or_create(
                slug=slug, defaults={"name": name, "usda_code": record.category_code}
            )
            self._categories[slug] = category.id
        self._category_names[name] = self._categories[slug]
        return self._categories[slug]

    def _market(self, code: str) -> None:
        if code not in self._markets:
            Market.objects.get_or_create(code=code, defaults={"name": MARKET_NAMES.get(code, code)})
            self._markets.add(code)


@contextmanager
def deferred_indexes() -> Iterator[bool]:
    """On PostgreSQL, when the catalogue is empty: drops the non-unique indexes of the
    food table, of its phrase index and of the typo vocabulary, and the food table's
    foreign keys, for the load and builds each once at the end, which is several times
    faster than maintaining ~25 indexes and checking two keys row by row. Must run
    inside the load's transaction, so a failed load rolls the drop back too. Yields
    whether it did (the catalogue was empty: every id is new).

    Dropping an index locks its table against reads until the load commits, so a
    catalogue that holds foods keeps its indexes: it may be serving, and reads go on
    during its loads (issue 28.3, ``bench/scripts/reads_during_load.py``). An empty one serves
    nothing worth waiting for."""
    if connection.vendor != "postgresql" or Food.objects.exists():
        yield False
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes "
            "WHERE tablename IN ('catalogue_food', 'catalogue_food_phrase', 'catalogue_word') "
            "AND indexdef NOT LIKE 'CREATE UNIQUE INDEX%'"
        )
        definitions = cursor.fetchall()
        for name, _ in definitions:
            cursor.execute(f'DROP INDEX "{name}"')
        cursor.execute(_FOREIGN_KEYS)
        foreign_keys = cursor.fetchall()
        for name, _ in foreign_keys:
            cursor.execute(f'ALTER TABLE catalogue_food DROP CONSTRAINT "{name}"')
    yield True
    with connection.cursor() as cursor:
        # Django's foreign keys are deferred; their checks must fire before CREATE INDEX.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
        for _, definition in definitions:
            cursor.execute(definition)
        for name, definition in foreign_keys:
            cursor.execute(f'ALTER TABLE catalogue_food ADD CONSTRAINT "{name}" {definition}')


# The food table's foreign keys (category, market), as ``pg_dump`` would restore them.
# A fresh load drops them and adds them again at its end: adding one checks every row in
# one join, where a kept one queues a check per row written (and again per row the group
# phase updates, as the rows are the transaction's own). On a copy of the table, 2.8 s
# for the FDC table's 390k rows and 1.0 s again for the 100k the group phase updates;
# in the load, the group update 6.0 -> 3.6 s (issue 41.3).
_FOREIGN_KEYS = (
    "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
    "WHERE conrelid = 'catalogue_food'::regclass AND contype = 'f' ORDER BY conname"
)


def _row(record: FoodRecord, category: int | None, content_hash: str) -> dict[str, Any]:
    """The ``Food`` column values of ``record`` in ``category``."""
    return record.columns(content_hash=content_hash) | {"category_id": category}


# Every column the writer writes, in the order of ``FoodRecord.columns`` (and the COPY's).
_COLUMNS = (*encoding.COLUMNS, "category_id")
_COPY = f"COPY catalogue_food ({', '.join(_COLUMNS)}) FROM STDIN"


def _copy_value(value: Any) -> Any:
    # A JSON column's text for COPY. PostgreSQL parses it into jsonb, so how it is
    # spelled does not matter: orjson, five times json.dumps's speed on 390k rows.
    return orjson.dumps(value).decode() if isinstance(value, dict | list) else value
