"""Records as rows of PostgreSQL's ``COPY`` text format, made in other processes
(issue 41.3).

A fresh load (the catalogue was empty) spends most of its read phase in Python: parsing
a row, then ``FoodRecord.columns()`` (the search and ranking columns, the content hash)
and its ``COPY`` encoding, about 0.15 ms of the 0.2 ms a food costs on this machine.
The loader therefore hands batches of parsed records to a pool of forked processes
(``catalogue.importers.load``) that return each food's columns as one line of the
``COPY`` text format, without its last column (the category id, which only the loading
process can look up or create); the loading process goes on parsing and copies the
lines back in order, so row ids, and everything ordered by them, are as a load in one
process gives. The workers never touch the database: they compute from the records
alone.

The text format (PostgreSQL's documentation, "COPY", "Text Format"): columns separated
by a tab, ``\\N`` for NULL, a backslash, tab, newline and carriage return in a value
escaped with a backslash. Numbers are written as Python's ``repr``, which reads back as
the same double; JSON values as orjson writes them (PostgreSQL parses jsonb, so its
spelling does not matter: the writer's own ``_copy_value``).
"""

from __future__ import annotations

from datetime import date
from typing import Any

import orjson

from catalogue.importers.records import FoodRecord

# The columns of a line, in ``FoodRecord.columns()``'s order.
COLUMNS = FoodRecord.column_names()
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def encode(records: list[FoodRecord]) -> list[bytes]:
    """Each record's columns as one line of ``COPY`` text, without its category id
    and the line's end (a tab and the id, then a newline, follow)."""
    return [line(record.columns()) for record in records]


def line(row: dict[str, Any]) -> bytes:
    """The values of ``row`` (``COLUMNS``, in order) as one ``COPY`` text line without
    its end. The common types first, a string escaped only when it holds a character
    to escape, and JSON only for its backslashes (orjson writes every control
    character escaped): 9 us a food against 20 through ``value`` alone (issue 41.3)."""
    out: list[str] = []
    add = out.append
    for item in map(row.__getitem__, COLUMNS):
        kind = type(item)
        if kind is float:
            add(repr(item))
        elif item is None:
            add("\\N")
        elif kind is str:
            add(item.translate(_ESCAPES) if _needs_escape(item) else item)
        elif kind is dict or kind is list:
            text = orjson.dumps(item).decode()
            add(text.replace("\\", "\\\\") if "\\" in text else text)
        else:
            add(value(item))
    return "\t".join(out).encode()


def _needs_escape(text: str) -> bool:
    return "\\" in text or "\t" in text or "\n" in text or "\r" in text


def value(item: Any) -> str:
    """One value in ``COPY`` text."""
    if item is None:
        return "\\N"
    if isinstance(item, str):
        return item.translate(_ESCAPES)
    if isinstance(item, bool):
        return "t" if item else "f"
    if isinstance(item, int | float):
        return repr(item)
    if isinstance(item, dict | list):
        return orjson.dumps(item).decode().translate(_ESCAPES)
    if isinstance(item, date):
        return item.isoformat()
    raise TypeError(f"no COPY text for {type(item).__name__}")
