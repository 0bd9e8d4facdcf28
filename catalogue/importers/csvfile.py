"""A source's CSV table read as records (FoodData Central's ``fooddata.csv``, IFCT's
``compositions.csv``): the header checked once, then each row made a record or skipped
with its line number, each food id kept once. Pure: no database."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from catalogue.importers.records import BadValue, FoodRecord, Skipped


class CsvRows(Protocol):
    """What ``csv.reader`` returns: rows, and the line the last one ended on."""

    line_num: int

    def __iter__(self) -> Iterator[list[str]]: ...

    def __next__(self) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class Header:
    """A table's first row: ``cells`` as read, ``names`` the columns' names (in the
    same order), ``index`` each column's position by its name (a name given twice: the
    later column)."""

    cells: list[str]
    names: list[str]
    index: dict[str, int]


def read_header(
    reader: CsvRows,
    file: str,
    required: Sequence[str],
    *,
    name: Callable[[str], str] = str,
) -> Header | Skipped:
    """The next row of ``reader`` as the ``Header``, each column named ``name(cell)``;
    or the ``Skipped`` (line 1) that leaves the whole file unread: an empty file, or a
    header without every ``required`` name."""
    cells = next(reader, None)
    if cells is None:
        return Skipped(file, 1, "empty file")
    names = [name(cell) for cell in cells]
    missing = [column for column in required if column not in names]
    if missing:
        return Skipped(file, 1, f"header lacks {', '.join(missing)}: nothing loaded")
    return Header(cells, names, {column: i for i, column in enumerate(names)})


def unique_records(
    reader: CsvRows,
    file: str,
    record: Callable[[list[str]], FoodRecord],
    repeated: Callable[[FoodRecord], str],
) -> Iterator[FoodRecord | Skipped]:
    """``record(row)`` for each row after the header; a row it refuses (``BadValue``)
    is skipped with the reason, and a row whose food id an earlier row had is skipped
    with ``repeated(record)``. Each skip names the line the row ended on."""
    seen: set[str] = set()
    for row in reader:
        try:
            made = record(row)
        except BadValue as exc:
            yield Skipped(file, reader.line_num, str(exc))
            continue
        if made.source_id in seen:
            yield Skipped(file, reader.line_num, repeated(made))
            continue
        seen.add(made.source_id)
        yield made
