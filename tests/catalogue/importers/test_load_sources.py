"""Several sources in one load, and a large load's rendering left to reads (issue 41.3)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction

from catalogue.importers import load
from catalogue.importers.load import catalogue_load, catalogue_load_sources
from catalogue.importers.progress import Progress
from catalogue.models import Food, FoodRendering, SourceLoad
from tests.support.catalogue_state import SOURCES, catalogue_state, empty_catalogue, load_in_order


def test_sources_in_one_load_give_the_catalogue_of_a_load_each(db):
    one_each = load_in_order(["sr28", "fdc", "ifct"])
    empty_catalogue()
    SourceLoad.objects.all().delete()
    reports, rendered = catalogue_load_sources(
        sources=["sr28", "fdc", "ifct"], paths=SOURCES, render=True
    )
    together = catalogue_state()
    for part in one_each:  # foods, groups, phrase rows, words, the very bytes served
        assert together[part] == one_each[part], part
    assert [r.source for r in reports] == ["sr28", "fdc", "ifct"]
    assert [r.inserted for r in reports] == [
        Food.objects.filter(source=source).count() for source in ("sr28", "fdc", "ifct")
    ]
    assert rendered == Food.objects.count() == FoodRendering.objects.count()
    assert set(SourceLoad.objects.values_list("source", flat=True)) == {"sr28", "fdc", "ifct"}


def test_a_failure_after_the_first_source_leaves_none_of_them(db, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the group phase failed")

    monkeypatch.setattr(load, "_group", broken)
    with pytest.raises(RuntimeError):
        catalogue_load_sources(sources=["sr28", "ifct"], paths=SOURCES)
    assert not Food.objects.exists() and not SourceLoad.objects.exists()


def test_a_large_load_leaves_its_rendering_to_the_first_reads(db, monkeypatch, unthrottled):
    monkeypatch.setattr(load, "RENDER_AT_LOAD_MAX", 5)
    progress = Progress(None)
    report = catalogue_load(source="sr28", path=SOURCES["sr28"], progress=progress)
    assert report.inserted > 5 and report.rendered == 0
    assert not FoodRendering.objects.exists()
    assert "left to render on their first read" in progress.phases[-1]["note"]
    food = Food.objects.order_by("id").first()
    first = unthrottled.get(f"/v1/foods/{food.public_id}")
    assert first.status_code == 200 and first.json()["data"]["name"] == food.name
    stored = FoodRendering.objects.get(food_id=food.pk)  # rendered by the read, for everyone
    assert stored.body() == first.content and stored.etag == first["ETag"]
    # Asked to, it renders whatever the size; a small load renders by itself.
    empty_catalogue()
    forced = catalogue_load(source="sr28", path=SOURCES["sr28"], render=True)
    assert forced.rendered == forced.inserted == FoodRendering.objects.count()
    monkeypatch.setattr(load, "RENDER_AT_LOAD_MAX", 20_000)
    small = catalogue_load(source="ifct", path=SOURCES["ifct"])
    assert small.rendered == small.inserted


def _command(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("load_catalogue", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_command_loads_several_sources_and_says_what_it_rendered(db):
    out, err = _command("--source", "sr28", "--source", "ifct", "--limit", "3", "--json")
    summary = json.loads(out)
    assert [s["source"] for s in summary["sources"]] == ["sr28", "ifct"]
    assert [s["inserted"] for s in summary["sources"]] == [3, 3]
    assert summary["rendered"] == 6 == FoodRendering.objects.count()
    phases = [json.loads(line) for line in err.splitlines()]
    assert [p["phase"] for p in phases] == ["read", "read", "group", "index", "render"]
    assert phases[0]["note"].startswith("sr28: ") and phases[1]["note"].startswith("ifct: ")
    # Loaded: --if-empty skips both; --no-render renders nothing.
    out, _ = _command("--source", "sr28", "--source", "ifct", "--if-empty")
    assert out.count("nothing loaded (--if-empty)") == 2
    FoodRendering.objects.all().delete()
    out, _ = _command("--source", "sr28", "--limit", "5", "--no-render")
    assert "2 inserted" in out and "0 rendered" in out and not FoodRendering.objects.exists()


def test_the_command_refuses_a_path_for_several_sources(db):
    with pytest.raises(CommandError, match="one --source"):
        _command("--source", "sr28", "--source", "ifct", "--path", str(SOURCES["ifct"]))
    assert not Food.objects.exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's constraints")
def test_a_fresh_load_puts_the_food_tables_foreign_keys_back_as_they_were(db):
    def foreign_keys() -> list[tuple[str, str, bool]]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT conname, pg_get_constraintdef(oid), convalidated FROM pg_constraint "
                "WHERE conrelid = 'catalogue_food'::regclass AND contype = 'f' ORDER BY 1"
            )
            return cursor.fetchall()

    before = foreign_keys()
    assert len(before) == 2  # category, market
    catalogue_load_sources(sources=["sr28", "ifct"], paths=SOURCES)  # an empty catalogue
    assert foreign_keys() == before
    food = Food.objects.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Food.objects.filter(pk=food.pk).update(category_id=10**9)
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # checked, not only deferred
