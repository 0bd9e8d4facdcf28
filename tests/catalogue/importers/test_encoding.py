"""A first load's rows encoded in other processes (issue 41.3,
catalogue/importers/encoding.py): the same catalogue as one process writes."""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

import pytest
from django.db import connection

from catalogue.importers import encoding, writer
from catalogue.importers import fdc as fdc_module
from catalogue.importers.load import catalogue_load_sources
from catalogue.models import Food, SourceLoad
from tests.support.catalogue_state import SOURCES, catalogue_state, empty_catalogue

NASTY = [
    "Cheese, back\\slash",
    "Juice,\ttabbed",
    'Bar "Quoted", with\nnewline',
    "Crème brûlée, \\N style",
    "Carriage\rreturn, soup",
]


def test_values_are_written_in_copy_text():
    assert encoding.value(None) == "\\N"
    assert encoding.value("a\\b\tc\nd\re") == "a\\\\b\\tc\\nd\\re"
    assert encoding.value("\\N") == "\\\\N"  # text, never NULL
    assert (encoding.value(True), encoding.value(0), encoding.value(0.1)) == ("t", "0", "0.1")
    assert encoding.value(1e-05) == "1e-05" and float(encoding.value(1 / 3)) == 1 / 3
    assert encoding.value({"a": "x\ty"}) == '{"a":"x\\\\ty"}'  # orjson escapes the tab
    assert encoding.value(date(2024, 10, 31)) == "2024-10-31"
    with pytest.raises(TypeError):
        encoding.value(object())


def test_a_line_is_each_value_in_copy_text_between_tabs():
    row = dict.fromkeys(encoding.COLUMNS)
    values = [
        *NASTY,
        "plain",
        "",
        "\\N",
        1e-05,
        -0.0,
        float("inf"),
        7,
        True,
        {"name": "a\\b", "tab": "x\ty"},
        [{"description": '1 cup, "packed"', "gram_weight": 220.0}],
        date(2024, 10, 31),
    ]
    for column, item in zip(encoding.COLUMNS, values, strict=False):
        row[column] = item
    assert len(values) < len(encoding.COLUMNS)  # the rest stay None
    expected = "\t".join(encoding.value(row[column]) for column in encoding.COLUMNS)
    assert encoding.line(row) == expected.encode()
    assert b"\\N" in encoding.line(row)  # None columns


def _with_nasty_names(tmp_path: Path) -> Path:
    """The look-alikes table with a few more rows whose names hold what COPY escapes."""
    with SOURCES["fdc"].open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header, first = rows[0], rows[1]
    for name in NASTY:
        rows.append([name, *first[1:]])
    path = tmp_path / "fooddata.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([header, *rows[1:]])
    return path


@pytest.mark.skipif(connection.vendor != "postgresql", reason="COPY is PostgreSQL's")
@pytest.mark.parametrize("pool_from", [0, 6])  # from the start; after two batches of 4
def test_a_load_encoded_by_a_pool_equals_one_process_writing_it(
    db, settings, tmp_path, monkeypatch, pool_from
):
    path = _with_nasty_names(tmp_path)
    paths = {"sr28": SOURCES["sr28"], "fdc": path}
    settings.LOAD_PROCESSES = 1  # no pool: the loading process writes each row
    catalogue_load_sources(sources=["sr28", "fdc"], paths=paths, render=True)
    alone = catalogue_state()
    empty_catalogue()
    SourceLoad.objects.all().delete()
    settings.LOAD_PROCESSES = 2  # an empty catalogue: both encoded by two processes
    monkeypatch.setattr(writer, "POOL_FROM", pool_from)
    monkeypatch.setattr(writer, "BATCH_SIZE", 4)
    catalogue_load_sources(sources=["sr28", "fdc"], paths=paths, render=True)
    pooled = catalogue_state()
    for part in alone:
        assert pooled[part] == alone[part], part
    names = {food["name"] for food in pooled["foods"].values()}
    assert set(NASTY) <= names


@pytest.mark.skipif(connection.vendor != "postgresql", reason="COPY is PostgreSQL's")
def test_a_pool_load_failing_while_its_copy_is_open_leaves_nothing(
    db, settings, tmp_path, monkeypatch
):
    path = _with_nasty_names(tmp_path)
    settings.LOAD_PROCESSES = 2
    monkeypatch.setattr(writer, "POOL_FROM", 0)
    monkeypatch.setattr(writer, "BATCH_SIZE", 4)
    monkeypatch.setattr(writer, "ENCODING_AHEAD", 0)  # each batch copied at once
    parse = fdc_module._record
    seen = []

    def failing(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(1)
        if len(seen) > 14:  # three batches of 4 copied into the open COPY
            raise RuntimeError("the source broke mid-read")
        return parse(*args, **kwargs)

    monkeypatch.setattr(fdc_module, "_record", failing)
    with pytest.raises(RuntimeError, match="mid-read"):
        catalogue_load_sources(sources=["fdc"], paths={"fdc": path})
    assert not Food.objects.exists() and not SourceLoad.objects.exists()
    with connection.cursor() as cursor:  # the connection is idle, not in a COPY
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
