"""The files of USDA's FoodData Central "Full Download" (CSV), from a folder or the zip
USDA publishes, read as CSV rows with their line numbers; and the per-food files
partitioned by ``fdc_id`` on disk, so that joining them never holds a whole file in
memory (issue 42, point 1). Pure: files in, rows out; no database.

Why partitions: ``food_nutrient.csv`` holds tens of millions of rows and USDA documents
no order for it, so a merge join by ``fdc_id`` (what SR28's sorted files allow,
catalogue.importers.sr28) cannot be relied on. Each per-food file is streamed once into
``buckets`` files by ``fdc_id % buckets``; a bucket's foods, nutrients and portions
then fit in memory together, whatever order the files are in.
"""

from __future__ import annotations

import csv
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

# The files and the columns read from each (FoodData Central "Download Field
# Descriptions"; the headers of the 2024 and 2025 releases). Other columns are ignored.
COLUMNS = {
    "food.csv": ("fdc_id", "data_type", "description", "food_category_id", "publication_date"),
    "branded_food.csv": (
        "fdc_id",
        "brand_owner",
        "brand_name",
        "gtin_upc",
        "ingredients",
        "serving_size",
        "serving_size_unit",
        "household_serving_fulltext",
        "branded_food_category",
    ),
    "food_nutrient.csv": ("fdc_id", "nutrient_id", "amount"),
    "food_portion.csv": (
        "fdc_id",
        "seq_num",
        "amount",
        "measure_unit_id",
        "portion_description",
        "modifier",
        "gram_weight",
    ),
    "measure_unit.csv": ("id", "name"),
    "nutrient.csv": ("id", "name", "unit_name", "nutrient_nbr"),
    "food_category.csv": ("id", "code", "description"),
    "wweia_food_category.csv": ("wweia_food_category", "wweia_food_category_description"),
}
PER_FOOD = ("food.csv", "branded_food.csv", "food_portion.csv", "food_nutrient.csv")
# Bytes of food_nutrient.csv per bucket: ~500,000 rows, some 100 MB of Python objects.
BUCKET_BYTES = 32 * 1024 * 1024


class ReleaseError(ValueError):
    """The release cannot be loaded at all: a file or a required column is missing."""


Row = tuple[int, dict[str, str]]  # (line the row ended on, the columns read)


class Release:
    """The release at ``path`` (a folder holding the CSV files, possibly one folder
    down, or the zip). ``size``/``bytes_read`` measure the reading for the progress
    bar; ``paths`` are what the load's digest hashes, ``path`` the first of them. Every
    file and every column read is checked here, before anything is loaded."""

    def __init__(self, path: Path) -> None:
        self.location = path
        self.bytes_read = 0
        self._zipped = path.is_file() and zipfile.is_zipfile(path)
        if self._zipped:
            with zipfile.ZipFile(path) as archive:
                self._members = {
                    Path(info.filename).name: (info.filename, info.file_size)
                    for info in archive.infolist()
                    if Path(info.filename).name in COLUMNS
                }
            self.paths = [path]
        elif path.is_dir():
            found = {p.name: p for p in [*path.glob("*.csv"), *path.glob("*/*.csv")]}
            self._members = {
                name: (str(found[name]), found[name].stat().st_size)
                for name in COLUMNS
                if name in found
            }
            self.paths = sorted(Path(member) for member, _ in self._members.values())
        else:
            raise FileNotFoundError(f"{path} is neither a folder nor a zip file")
        missing = [name for name in COLUMNS if name not in self._members]
        if missing:
            raise ReleaseError(f"{path} holds no {', '.join(missing)}")
        self.path = self.paths[0]
        self.size = sum(self._members[name][1] for name in PER_FOOD)
        for name in COLUMNS:
            next(self.rows(name), None)  # a header without a column read: ReleaseError

    @contextmanager
    def _open(self, name: str) -> Iterator[IO[bytes]]:
        member = self._members[name][0]
        if self._zipped:
            with zipfile.ZipFile(self.location) as archive, archive.open(member) as handle:
                yield handle
        else:
            with open(member, "rb") as handle:
                yield handle

    def rows(self, name: str, *, counted: bool = False) -> Iterator[Row]:
        """The rows of file ``name`` as {column: value} of its ``COLUMNS`` (values
        stripped), with the line each ended on; a header without one of them is a
        ``ReleaseError``. ``counted``: its bytes add to ``bytes_read``."""
        with self._open(name) as handle:
            reader = csv.reader(self._lines(handle, counted))
            header = [cell.strip().lstrip("\ufeff") for cell in next(reader, [])]
            missing = [c for c in COLUMNS[name] if c not in header]
            if missing:
                raise ReleaseError(f"{name} lacks the column {', '.join(missing)}")
            index = [(c, header.index(c)) for c in COLUMNS[name]]
            width = len(header)
            for row in reader:
                if not row:
                    continue
                if len(row) != width:
                    yield reader.line_num, {"": f"expected {width} fields, got {len(row)}"}
                    continue
                yield reader.line_num, {c: row[i].strip() for c, i in index}

    def _lines(self, handle: IO[bytes], counted: bool) -> Iterator[str]:
        for raw in handle:
            if counted:
                self.bytes_read += len(raw)
            yield raw.decode("utf-8", errors="replace")

    def buckets(self) -> int:
        """How many partitions the per-food files are split into: one per
        ``BUCKET_BYTES`` of food_nutrient.csv."""
        return max(1, -(-self._members["food_nutrient.csv"][1] // BUCKET_BYTES))

    @contextmanager
    def partitioned(self) -> Iterator[Partitions]:
        """The per-food files split by ``fdc_id`` into temporary files, removed on
        leaving. One bucket: nothing is written, the files are read as they are."""
        count = self.buckets()
        with tempfile.TemporaryDirectory(prefix="fdc-release-") as folder:
            yield Partitions(self, Path(folder), count)


class Partitions:
    """The per-food files' rows by bucket (``fdc_id % count``); a row whose ``fdc_id``
    is not a number is in bucket 0 (reported there)."""

    def __init__(self, release: Release, folder: Path, count: int) -> None:
        self.release = release
        self.folder = folder
        self.count = count
        if count > 1:
            for name in PER_FOOD:
                self._split(name)

    def _split(self, name: str) -> None:
        columns = ("", *COLUMNS[name])
        handles = [
            (self.folder / f"{name}.{i}").open("w", newline="", encoding="utf-8")
            for i in range(self.count)
        ]
        try:
            writers = [csv.writer(handle) for handle in handles]
            for line, row in self.release.rows(name, counted=True):
                fdc_id = row.get("fdc_id", "")
                bucket = int(fdc_id) % self.count if fdc_id.isdigit() else 0
                writers[bucket].writerow([line, *(row.get(c, "") for c in columns)])
        finally:
            for handle in handles:
                handle.close()

    def rows(self, name: str, bucket: int) -> Iterator[Row]:
        """The rows of file ``name`` in ``bucket``, in file order."""
        if self.count == 1:
            yield from self.release.rows(name, counted=True)
            return
        columns = ("", *COLUMNS[name])
        with (self.folder / f"{name}.{bucket}").open(newline="", encoding="utf-8") as handle:
            for cells in csv.reader(handle):
                row = dict(zip(columns, cells[1:], strict=True))
                if not row[""]:
                    del row[""]
                yield int(cells[0]), row
