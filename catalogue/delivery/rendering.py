"""Pre-rendered food responses (issue 13): render once, then serve bytes.

The catalogue only changes when a load (or an operator) changes it, so each food's
record body (``GET /v1/foods/{id}``, with its ETag) and its summary (as it stands in a
list page) are rendered once and stored in ``FoodRendering``, tagged with the food's
``revision`` and the definitions version (``CatalogueVersion`` row 2: nutrients and
categories) they were made from (issue 28). A read is then one raw query that finds the
food and its bytes; no model is built and nothing is serialised.

- The record is stored compressed (``memory.pack``, issue 41.2): a read keeps it in the
  worker's memory and shares it through Redis as it came, and decompresses it once for
  the body. ``FoodRendering.body()`` gives the served bytes back.
- ``render_ids()`` renders some foods (``catalogue_load`` calls it for the foods it
  changed), ``render_all()`` every food (``manage.py render_catalogue``).
- A read whose row is missing or was made from another revision or definitions version
  renders the food on the spot (the same code), stores it and serves it: nothing is
  ever served stale, and a food changed by the admin or a test is re-rendered on its
  next read, alone.
- Each row also carries ``render_format()``: a fingerprint of the code that shapes the
  bytes (this module, the serializers and what they call, DRF's JSON settings). A
  deploy that changes any of it serves nothing rendered by the code before it: those
  rows count as missing until rendered again (by their first read, or by
  ``manage.py render_catalogue``). The catalogue version alone cannot tell, since no
  row changed.
- Each worker also keeps the bytes it served in memory (``local_records``: records by
  id and market; ``local_pages``: whole search pages by path, market and depth; see
  catalogue.delivery.memory), valid for the catalogue version it last read. It reads the
  version again at most every ``CATALOGUE_VERSION_SECONDS`` (1 s; 0 turns the memory
  off), so a load is served by every worker within that long after it commits, and a
  hot read costs no query.

The bytes are made by the serializers' own functions (``food_detail``, ``food_summary``)
and encoded by ``dumps`` (orjson: the JSON DRF's ``JSONRenderer`` writes, up to how a
float under 1e-4 is spelled, ``0.00005`` for ``5e-05``; six times faster, which a
load's 400k renderings feel: issue 28). The record's ETag is ``etag_of_bytes`` of the
record's bytes, so the tag names exactly what is served. Tags are consistent because
the definitions version is read *before* the rows, and each food's revision in the same
query as the rows its bytes are made from: a change committing in between leaves a tag
older than the row it describes, so that rendering is never served.

Reads (the version, records, summaries, and the rows a rendering is made from) are
routed like every catalogue read (``foodservice.ops.replicas``: a replica during a GET or
HEAD when replicas are configured, the primary if it fails); a rendering made on the
spot is stored on the primary, tagged with the version read where its rows were read
(a replica's version is never newer than the primary's, so at worst it is re-rendered).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import logging
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import rest_framework
from django.db import DatabaseError, connection, connections, transaction
from rest_framework.renderers import JSONRenderer
from rest_framework.settings import api_settings

from catalogue.delivery import serializers
from catalogue.delivery.conditional import etag_of_bytes
from catalogue.delivery.memory import LocalBytes, pack
from catalogue.models import Food, FoodRendering, Nutrient
from catalogue.nutrients import NutrientRef
from catalogue.routing import catalogue_read_alias
from core import problems
from core.processes import forked_pool
from core.sql import prepared_cursor

logger = logging.getLogger("foodservice.catalogue")

RENDER_BATCH = 500
_VERSION = "COALESCE((SELECT n FROM catalogue_catalogueversion WHERE id = 1), 0)"
_DEFINITIONS = "COALESCE((SELECT n FROM catalogue_catalogueversion WHERE id = 2), 0)"
# One raw query per record read: the food (visible in the market, if given) and its
# bytes when they are current (this food's revision, the definitions version, this
# code's format). The food table's unique index on public_id finds the row, the
# rendering's primary key its bytes.
_RECORD = (
    "SELECT f.id, r.record, r.etag FROM catalogue_food f "  # noqa: S608 (constants only)
    "LEFT JOIN catalogue_foodrendering r ON r.food_id = f.id AND r.revision = f.revision "
    "AND r.version = " + _DEFINITIONS + " AND r.format = %s WHERE f.public_id = %s"
)
_RECORD_IN_MARKET = _RECORD + " AND f.market_id = %s"
# _RECORD for many public ids at once (catalogue/batch.py).
_RECORDS = (
    "SELECT f.public_id, f.id, r.record, r.etag FROM catalogue_food f "  # noqa: S608 (constants only)
    "LEFT JOIN catalogue_foodrendering r ON r.food_id = f.id AND r.revision = f.revision "
    "AND r.version = " + _DEFINITIONS + " AND r.format = %s WHERE f.public_id IN ({ids})"
)
_SUMMARIES = (
    "SELECT r.food_id, r.summary FROM catalogue_foodrendering r "  # noqa: S608 (constants only)
    "JOIN catalogue_food f ON f.id = r.food_id AND f.revision = r.revision "
    "WHERE r.version = " + _DEFINITIONS + " AND r.format = %s AND r.food_id IN ({ids})"
)
# A food's stored summary as a column of another statement (a search page's rows read
# with their summaries in one statement: catalogue.search.matching.phrase_page); NULL
# when missing or outdated, as ``summaries`` reads them. ``{food}`` names the food id's
# column; the statement passes this code's format as ``%(format)s``.
SUMMARY_COLUMN = (
    "(SELECT r.summary FROM catalogue_foodrendering r "  # noqa: S608 (constants only)
    "JOIN catalogue_food f ON f.id = r.food_id AND f.revision = r.revision "
    "WHERE r.food_id = {food} AND r.version = " + _DEFINITIONS + " AND r.format = %(format)s)"
)
# A rendering replaces a stored one unless that one is newer (an older load's render
# finishing late never overwrites a newer food's bytes).
_ON_CONFLICT = (
    "ON CONFLICT (food_id) DO UPDATE SET version = excluded.version, "
    "revision = excluded.revision, format = excluded.format, etag = excluded.etag, "
    "record = excluded.record, summary = excluded.summary "
    "WHERE (catalogue_foodrendering.version, catalogue_foodrendering.revision) "
    "<= (excluded.version, excluded.revision)"
)
_UPSERT = (  # noqa: S608 (constants only)
    "INSERT INTO catalogue_foodrendering "
    "(food_id, version, revision, format, etag, record, summary) VALUES {values} "
) + _ON_CONFLICT
_UPSERT_COPIED = (  # noqa: S608 (constants only)
    "INSERT INTO catalogue_foodrendering "
    "(food_id, version, revision, format, etag, record, summary) "
    "SELECT food_id, version, revision, format, etag, record, summary FROM foodrendering_in "
) + _ON_CONFLICT
# The modules whose code shapes the stored bytes (with this one): what a food record and
# summary hold (serializers), the headline nutrients and per-serving arithmetic
# (nutrients), the record's ETag (conditional), the fields the serializers read (models),
# the sources' descriptions (sources). The search's ranking is not among them (issue 37:
# per_serving moved to nutrients), so a ranking change re-renders nothing.
FORMAT_MODULES = (
    "catalogue.delivery.serializers",
    "catalogue.labels",
    "catalogue.nutrients",
    "catalogue.delivery.conditional",
    "catalogue.models",
    "catalogue.sources",
    __name__,
)


def format_fingerprint(files: Iterable[Path], *extra: object) -> str:
    """16 hex digits that change whenever any of ``files`` (their bytes) or ``extra``
    (their reprs) do."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.read_bytes())
        digest.update(b"\x00")
    digest.update(repr(extra).encode())
    return digest.hexdigest()[:16]


@functools.cache
def render_format() -> str:
    """This code's rendering format: ``format_fingerprint`` of ``FORMAT_MODULES``' files,
    DRF's version and the JSON renderer's settings. Workers running the same code agree
    on it; a deploy that changes any of it makes every stored rendering outdated (a
    comment-only change too: at worst every food is rendered once more)."""
    files = [Path(importlib.import_module(name).__file__ or "") for name in FORMAT_MODULES]
    json_settings = (
        api_settings.UNICODE_JSON,
        api_settings.COMPACT_JSON,
        api_settings.STRICT_JSON,
        api_settings.COERCE_DECIMAL_TO_STRING,
    )
    return format_fingerprint(files, rest_framework.VERSION, json_settings)


@dataclass(frozen=True, slots=True)
class Rendering:
    food_id: int
    version: int  # the definitions version (CatalogueVersion row 2) it was made under
    etag: str
    record: bytes
    summary: bytes
    format: str = field(default_factory=render_format)
    revision: int = 0  # of its food
    # The record compressed (memory.pack): what is stored, kept in a worker's memory and
    # shared through Redis, so a record read from the database is never compressed on
    # the request's path. Made from ``record`` when not given.
    packed: bytes = b""

    def __post_init__(self) -> None:
        if not self.packed:
            object.__setattr__(self, "packed", pack(self.record))


def render_json(data: object) -> bytes:
    """``data`` as the API renders it (DRF's ``JSONRenderer`` with the project's
    settings): the very bytes a ``Response(data)`` would carry."""
    return JSONRenderer().render(data)


def dumps(data: object) -> bytes:
    """``render_json(data)``, faster (orjson): the stored renderings and the parts of a
    list page encoded per request (``links`` and ``meta``). orjson writes what
    ``json.dumps`` does for strings, integers, booleans, None and floats from 1e-4 up
    (smaller floats in plain notation: ``0.00005``, the same number); DRF also escapes
    U+2028/U+2029, done here too (tested). Anything orjson refuses (a ``Decimal``, a
    non-string key) goes through ``render_json``."""
    try:
        out = orjson.dumps(data)
    except TypeError:
        return render_json(data)
    if b"\xe2\x80" in out:
        out = out.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
    return out


# Per worker (catalogue.delivery.memory): records get three quarters of CATALOGUE_MEMORY_MB
# (~2 KB a record compressed), whole search pages a quarter.
local_records = LocalBytes(share=0.75, version=lambda: current_version())
local_pages = LocalBytes(share=0.25, version=lambda: current_version())


def food_record(*, public_id: str, market: str | None) -> tuple[bytes, str]:
    """The body and ETag of ``GET /v1/foods/{public_id}`` for a caller who sees
    ``market`` (None: all); ``NotFound`` when the food is missing or invisible."""
    body, etag, _ = food_record_read(public_id=public_id, market=market)
    return body, etag


def food_record_read(*, public_id: str, market: str | None) -> tuple[bytes, str, bytes | None]:
    """``food_record``'s body and ETag, and the body compressed as stored when it was
    read now (None when this worker's memory held it): what a copy shared with the
    other workers carries, never compressed again."""
    return local_records.remember_packed(
        (public_id, market), lambda: _food_record(public_id, market)
    )


def _food_record(public_id: str, market: str | None) -> tuple[bytes, bytes, str]:
    fmt = render_format()
    sql, params = (
        (_RECORD, [fmt, public_id]) if not market else (_RECORD_IN_MARKET, [fmt, public_id, market])
    )
    with prepared_cursor(catalogue_read_alias()) as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        raise problems.NotFound(f"No food {public_id!r} in this catalogue.")
    food_id, packed, etag = row
    if packed is None:
        rendering = render_foods([food_id])[food_id]
        return rendering.record, rendering.packed, rendering.etag
    packed = bytes(packed)
    return zlib.decompress(packed), packed, etag


def food_records(*, public_ids: list[str], market: str | None) -> dict[str, tuple[bytes, str]]:
    """``food_record`` for many ids: each visible food's (body, ETag) by public id, from
    this worker's memory, else one query for the rest (outdated ones rendered now), kept
    in memory; ids of no visible food are left out."""
    memory = local_records
    found: dict[str, tuple[bytes, str]] = {}
    for public_id in public_ids:
        hit = memory.get((public_id, market))
        if hit is not None:
            found[public_id] = hit
    rest = [i for i in public_ids if i not in found]
    if not rest:
        return found
    version = memory.version_now()
    sql = _RECORDS.format(ids=", ".join(["%s"] * len(rest)))
    params: list[object] = [render_format(), *rest]
    if market:
        sql += " AND f.market_id = %s"
        params.append(market)
    with prepared_cursor(catalogue_read_alias()) as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    outdated = {food_id: public_id for public_id, food_id, packed, _ in rows if packed is None}
    rendered = render_foods(list(outdated)) if outdated else {}
    for public_id, food_id, packed, etag in rows:
        if packed is None:
            if food_id not in rendered:
                continue  # deleted since
            made = rendered[food_id]
            body, packed, etag = made.record, made.packed, made.etag
        else:
            packed = bytes(packed)
            body = zlib.decompress(packed)
        found[public_id] = (body, etag)
        memory.put_packed((public_id, market), (packed, etag), version=version)
    return found


def summaries(food_ids: list[int]) -> dict[int, bytes]:
    """Each food's summary bytes (as in a list page), by id: one query for the stored
    ones, the missing or outdated ones rendered now."""
    if not food_ids:
        return {}
    found: dict[int, bytes] = {}
    ids = sorted(set(food_ids))
    sql = _SUMMARIES.format(ids=", ".join(["%s"] * len(ids)))
    with prepared_cursor(catalogue_read_alias()) as cursor:
        cursor.execute(sql, [render_format(), *ids])
        found = {food_id: bytes(summary) for food_id, summary in cursor.fetchall()}
    missing = [food_id for food_id in ids if food_id not in found]
    if missing:
        found |= {i: r.summary for i, r in render_foods(missing).items()}
    return found


def render_foods(food_ids: Iterable[int]) -> dict[int, Rendering]:
    """Render the foods ``food_ids`` (those that exist), store the renderings and
    return them by id. Storing is best effort: a read that cannot write (a read-only
    replica, SQLite busy) still answers from what it rendered."""
    version = definitions_version()  # before the rows: see the module docstring
    renderings = list(_render(list(food_ids), version))
    try:
        with transaction.atomic():
            _store(renderings)
    except DatabaseError as exc:
        logger.warning("renderings not stored: %s", exc)
    return {r.food_id: r for r in renderings}


# A render of more foods than this, outside a transaction, is shared among processes.
PARALLEL_FROM = 20_000
PARALLEL_CHUNK = 5_000


def render_ids(
    food_ids: Iterable[int],
    *,
    batch: int = RENDER_BATCH,
    on_batch: Callable[[int], None] = lambda done: None,
    processes: int | None = None,
) -> int:
    """Render and store the foods ``food_ids`` (a load's changed foods), ``batch`` at a
    time, each batch its own transaction; ``on_batch`` gets the number done so far.
    Returns how many were rendered.

    Rendering is Python work (~0.35 ms a food): from ``PARALLEL_FROM`` foods, outside a
    transaction, on PostgreSQL, it is shared among ``processes`` forked processes
    (default: one per CPU), each with its own connection."""
    ids = list(food_ids)
    processes = processes or os.cpu_count() or 1
    parallel = (
        processes > 1
        and len(ids) >= PARALLEL_FROM
        and connection.vendor == "postgresql"
        and not connection.in_atomic_block
    )
    if not parallel:
        return _render_ids(ids, batch=batch, on_batch=on_batch)
    chunks = [ids[i : i + PARALLEL_CHUNK] for i in range(0, len(ids), PARALLEL_CHUNK)]
    connections.close_all()  # the children open their own; never share a socket
    done = 0
    # Not ``with Pool()``: its exit terminates the workers, and a worker killed while it
    # holds the task queue's lock leaves the other waiting on it forever, the load hung
    # after its last rendering (seen once in two full loads). Closed, the workers take
    # the end-of-work sentinel and leave on their own; terminated only on an error,
    # which ends them at once (core.processes: their SIGTERM takes its default action).
    pool = forked_pool(processes)
    try:
        for count in pool.imap_unordered(_render_chunk, chunks):
            done += count
            on_batch(done)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
    return done


def _render_chunk(ids: list[int]) -> int:
    return _render_ids(ids, batch=RENDER_BATCH, on_batch=lambda done: None)


def _render_ids(ids: list[int], *, batch: int, on_batch: Callable[[int], None]) -> int:
    version = definitions_version()
    done = 0
    for start in range(0, len(ids), batch):
        renderings = list(_render(ids[start : start + batch], version))
        with transaction.atomic():
            _store(renderings)
        done += len(renderings)
        on_batch(done)
    return done


def render_all(
    *, batch: int = RENDER_BATCH, on_batch: Callable[[int], None] = lambda done: None
) -> int:
    """Render every food under the current definitions and format, and drop the
    renderings of deleted foods and of older definitions. Returns the number of foods
    rendered."""
    version = definitions_version()
    ids = Food.objects.order_by("id").values_list("id", flat=True)
    done = render_ids(ids, batch=batch, on_batch=on_batch)
    FoodRendering.objects.filter(version__lt=version).delete()
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM catalogue_foodrendering WHERE NOT EXISTS "
            "(SELECT 1 FROM catalogue_food f WHERE f.id = catalogue_foodrendering.food_id)"
        )
    return done


def current_version() -> int:
    """The catalogue version (row 1: any change to foods, nutrients or categories),
    read where the catalogue's rows are read (a replica during a GET when replicas are
    configured, like every catalogue read: issue 18)."""
    with connections[catalogue_read_alias()].cursor() as cursor:
        cursor.execute("SELECT " + _VERSION)
        return int(cursor.fetchone()[0])


def definitions_version() -> int:
    """The definitions version (row 2: changes to nutrients and categories, which every
    rendering shows), read like ``current_version``."""
    with connections[catalogue_read_alias()].cursor() as cursor:
        cursor.execute("SELECT " + _DEFINITIONS)
        return int(cursor.fetchone()[0])


def _render(food_ids: list[int], version: int) -> Iterator[Rendering]:
    nutrients = {
        row[0]: NutrientRef(*row) for row in Nutrient.objects.values_list(*NutrientRef._fields)
    }
    # One query reads each food's revision with the rows its bytes are made from, so a
    # tag always names the very rows rendered.
    for food in Food.objects.select_related("category").filter(id__in=food_ids):
        summary = serializers.food_summary(serializers.food_row(food))
        record = dumps({"data": serializers.food_detail(food, nutrients, summary=summary)})
        yield Rendering(
            food_id=food.pk,
            version=version,
            revision=food.revision,
            etag=etag_of_bytes(record),
            record=record,
            summary=dumps(summary),
        )


def _store(renderings: list[Rendering]) -> None:
    if not renderings:
        return
    if connection.vendor == "postgresql" and len(renderings) >= COPY_FROM:
        _store_copied(renderings)
        return
    values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(renderings))
    params: list[object] = []
    for r in renderings:
        params += [r.food_id, r.version, r.revision, r.format, r.etag, r.packed, r.summary]
    with connection.cursor() as cursor:
        cursor.execute(_UPSERT.format(values=values), params)


# From this many renderings (a load's batches), PostgreSQL gets them by COPY into a
# temporary table, then one upsert from it: 1.5 times faster than a VALUES list of the
# same rows (bench/RESULTS.md, "Loading"), with the same guard against older rows.
COPY_FROM = 100
_COPY_TABLE = (
    "CREATE TEMPORARY TABLE foodrendering_in "
    "(LIKE catalogue_foodrendering INCLUDING DEFAULTS) ON COMMIT DROP"
)
_COPY_IN = (
    "COPY foodrendering_in (food_id, version, revision, format, etag, record, summary) FROM STDIN"
)


def _store_copied(renderings: list[Rendering]) -> None:
    """``_store`` through COPY. The temporary table lives for the transaction at most
    (``ON COMMIT DROP``; dropped at once when the caller's transaction goes on), so it
    needs no session state (PgBouncer's transaction pooling hands each transaction any
    server connection)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_COPY_TABLE)
        with cursor.cursor.copy(_COPY_IN) as copy:
            for r in renderings:
                copy.write_row(
                    (r.food_id, r.version, r.revision, r.format, r.etag, r.packed, r.summary)
                )
        cursor.execute(_UPSERT_COPIED)
        cursor.execute("DROP TABLE foodrendering_in")  # inside a load's own transaction
