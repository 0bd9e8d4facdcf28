"""``catalogue_load``: one source into the catalogue, all or nothing (issue 3, point 2)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.db import connection, transaction

from catalogue import rendering, variants
from catalogue.importers import fdc, ifct, sr28
from catalogue.importers.progress import Progress
from catalogue.importers.records import FoodRecord, Skipped
from catalogue.importers.writer import Writer, deferred_indexes
from catalogue.selectors import catalogue_cache_forget

SOURCES = ("sr28", "fdc", "ifct")


@dataclass(frozen=True, slots=True)
class LoadReport:
    source: str
    inserted: int
    updated: int
    unchanged: int
    skipped: int
    seconds: float

    def summary(self) -> str:
        return (
            f"{self.source}: {self.inserted:,} inserted, {self.updated:,} updated, "
            f"{self.unchanged:,} unchanged, {self.skipped:,} skipped in {self.seconds:.1f}s"
        )


def catalogue_load(
    *,
    source: str,
    path: Path | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    on_skip: Callable[[Skipped], None] = lambda skipped: None,
) -> LoadReport:
    """Loads ``source`` ("sr28": a directory of SR28 files; "fdc": fooddata.csv; "ifct":
    the IFCT 2017 compositions CSV) from ``path`` or the installed package (IFCT: the
    vendored file), at most ``limit`` foods.

    Runs in one transaction: the catalogue shows either the whole load or none of it.
    Malformed rows go to ``on_skip`` and are left out; they never abort the load.
    """
    started = time.monotonic()
    reader = _reader(source, path)
    skipped = 0
    with transaction.atomic():
        with deferred_indexes() as fresh:
            writer = Writer(fresh=fresh)
            writer.nutrients(reader.nutrient_defs(), authoritative=source == "sr28")
            loaded = 0
            for item in reader.records():
                if isinstance(item, Skipped):
                    skipped += 1
                    on_skip(item)
                    continue
                if limit is not None and loaded >= limit:
                    break
                writer.add(item)
                loaded += 1
                if progress and loaded % 1000 == 0:
                    progress.update(
                        done=reader.lines.bytes_read, total=reader.lines.size, rows=loaded
                    )
            writer.flush()
        # Look-alike groups may have gained or lost members (indexes built by now).
        variants.refresh()
    if progress:
        progress.update(done=reader.lines.size, total=reader.lines.size, rows=loaded, final=True)
    if connection.vendor == "postgresql":
        # Fresh statistics for the planner, and a visibility map so that scans of the
        # phrase index stay index-only (catalogue/search.py).
        with connection.cursor() as cursor:
            # VACUUM cannot run inside a transaction (an outer atomic block, a test).
            vacuum = "ANALYZE" if connection.in_atomic_block else "VACUUM ANALYZE"
            cursor.execute(f"{vacuum} catalogue_food, catalogue_food_phrase, catalogue_word")
    catalogue_cache_forget()
    # The responses of every food, rendered once now rather than by the first reads.
    rendering.render_all()
    counts = writer.counts
    return LoadReport(
        source=source,
        inserted=counts["inserted"],
        updated=counts["updated"],
        unchanged=counts["unchanged"],
        skipped=skipped,
        seconds=time.monotonic() - started,
    )


def _reader(source: str, path: Path | None) -> sr28.SR28 | fdc.FDC | ifct.IFCT:
    if source == "sr28":
        return sr28.SR28(path or sr28.default_dir())
    if source == "fdc":
        return fdc.FDC(path or fdc.default_file())
    if source == "ifct":
        return ifct.IFCT(path or ifct.default_file())
    raise ValueError(f"unknown source {source!r}; one of {', '.join(SOURCES)}")


__all__ = ["SOURCES", "FoodRecord", "LoadReport", "catalogue_load"]
