"""The loaders on small files in the real USDA formats (issue 3, point 2)."""

from __future__ import annotations

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from catalogue.importers.load import catalogue_load
from catalogue.importers.progress import render
from catalogue.models import Category, Food, Market, Nutrient
from tests.catalogue.conftest import DATA

pytestmark = pytest.mark.django_db


def test_sr28_load_stores_foods_with_nutrients_per_100g_portions_and_group(sr28_small):
    assert (sr28_small.inserted, sr28_small.skipped) == (20, 0)
    butter = Food.objects.get(public_id="sr28-01001")
    assert (butter.name, butter.source, butter.source_id) == ("Butter, salted", "sr28", "01001")
    assert butter.data_type == "sr_legacy"
    assert butter.category.name == "Dairy and Egg Products"
    assert butter.category.usda_code == "0100"
    assert butter.market_id == "US"
    assert butter.nutrients["203"] == 0.85
    assert butter.protein_g == 0.85 and butter.energy_kcal == 717.0
    assert butter.portions[1] == {"description": "1 tbsp", "gram_weight": 14.2}
    assert (butter.serving_description, butter.serving_grams) == ('1 pat (1" sq, 1/3" high)', 5.0)


def test_sr28_load_keeps_brand_owner_and_nutrient_definitions(sr28_small):
    assert Food.objects.get(public_id="sr28-01188").brand_owner == "Kraft Foods, Inc."
    protein = Nutrient.objects.get(id=203)
    assert (protein.number, protein.name, protein.unit, protein.tag) == (
        "203",
        "Protein",
        "g",
        "PROCNT",
    )
    assert Nutrient.objects.get(id=317).unit == "µg"  # NUTR_DEF is ISO-8859-1


def test_nutrient_not_measured_is_absent_and_null_never_zero(sr28_small):
    cheez_whiz = Food.objects.get(public_id="sr28-01188")
    assert "291" not in cheez_whiz.nutrients or cheez_whiz.fiber_g is not None
    unmeasured = [f for f in Food.objects.all() if "269" not in f.nutrients]
    assert unmeasured, "the sample holds foods without a sugars value"
    assert all(f.sugars_g is None for f in unmeasured)


def test_rerun_updates_and_never_duplicates(sr28_small):
    again = catalogue_load(source="sr28", path=DATA / "sr28")
    assert (again.inserted, again.updated, again.unchanged) == (0, 0, 20)
    assert Food.objects.count() == 20


def test_rerun_with_a_changed_row_updates_it_in_place(sr28_small, tmp_path: Path):
    changed = tmp_path / "sr28"
    shutil.copytree(DATA / "sr28", changed)
    path = changed / "FOOD_DES.txt"
    path.write_bytes(path.read_bytes().replace(b"~Butter, salted~", b"~Butter, salted, new~"))
    before = Food.objects.get(public_id="sr28-01001").pk
    report = catalogue_load(source="sr28", path=changed)
    assert (report.inserted, report.updated, report.unchanged) == (0, 1, 19)
    butter = Food.objects.get(public_id="sr28-01001")
    assert (butter.pk, butter.name) == (before, "Butter, salted, new")
    assert butter.search_name == " butter salted new "


def test_sr28_malformed_rows_are_reported_with_line_and_skipped():
    skipped = []
    report = catalogue_load(source="sr28", path=DATA / "sr28_malformed", on_skip=skipped.append)
    found = {(s.file, s.line): s.reason for s in skipped}
    assert found[("FOOD_DES", 2)] == "expected 14 fields, got 3"
    assert "NDB_No is not 5 digits" in found[("FOOD_DES", 4)]
    assert "unknown food group" in found[("FOOD_DES", 5)]
    assert "no food 00999" in found[("NUT_DATA", 1)]
    assert any("unknown Nutr_No" in r for (f, _), r in found.items() if f == "NUT_DATA")
    assert any("Nutr_Val is not a number" in r for r in found.values())
    assert any("no food 99999" in r for r in found.values())
    assert any("Gm_Wgt is not a number" in r for r in found.values())
    assert report.inserted == 3
    assert set(Food.objects.values_list("source_id", flat=True)) == {"01001", "01002", "01009"}
    assert "203" not in Food.objects.get(source_id="01002").nutrients  # the bad row only


def test_fdc_load_maps_columns_types_and_categories(fdc_small):
    assert fdc_small.inserted == 18
    butter = Food.objects.get(name="Butter, salted", source="fdc")
    assert butter.data_type == "sr_legacy"
    assert butter.public_id.startswith("fdc-") and len(butter.source_id) == 16
    assert butter.category.slug == "dairy-and-egg-products"
    assert butter.protein_g == 0.85 and butter.nutrients["208"] == pytest.approx(716.78, abs=0.01)
    assert set(Food.objects.values_list("data_type", flat=True)) == {
        "branded",
        "sr_legacy",
        "survey",
        "foundation",
        "sub_sample",
        "agricultural_acquisition",
    }
    assert Nutrient.objects.get(id=203).fdc_id == 1003
    assert Nutrient.objects.get(id=1100).name == "Iodine"
    assert list(Market.objects.values_list("code", flat=True)) == ["US"]


def test_fdc_ids_are_stable_across_loads(fdc_small):
    ids = set(Food.objects.values_list("public_id", flat=True))
    Food.objects.all().delete()
    catalogue_load(source="fdc", path=DATA / "fdc" / "fooddata.csv")
    assert set(Food.objects.values_list("public_id", flat=True)) == ids


def test_fdc_malformed_rows_are_reported_and_skipped():
    skipped = []
    report = catalogue_load(
        source="fdc", path=DATA / "fdc" / "fooddata.csv", on_skip=skipped.append
    )
    reasons = {s.line: s.reason for s in skipped}
    assert reasons[2] == "empty foodName"
    assert any("portion_gram_weight is out of range" in r for r in reasons.values())
    assert any(r == "expected 45 fields, got 3" for r in reasons.values())
    assert any("Protein is not a number" in r for r in reasons.values())
    assert any("unknown data_type 'experimental_food'" in r for r in reasons.values())
    assert any("repeats an earlier row" in r for r in reasons.values())
    assert report.skipped == len(skipped) == 6
    assert not Food.objects.filter(name="").exists()


def test_limit_loads_at_most_n_foods():
    report = catalogue_load(source="sr28", path=DATA / "sr28", limit=5)
    assert report.inserted == 5 == Food.objects.count()


def test_command_loads_and_prints_a_summary():
    out, err = StringIO(), StringIO()
    call_command(
        "load_catalogue", "--source", "sr28", "--path", str(DATA / "sr28"), stdout=out, stderr=err
    )
    assert "sr28: 20 inserted, 0 updated, 0 unchanged, 0 skipped" in out.getvalue()


def test_command_if_empty_skips_when_foods_of_the_source_exist(sr28_small):
    out = StringIO()
    call_command("load_catalogue", "--source", "sr28", "--if-empty", stdout=out)
    assert "nothing loaded" in out.getvalue()
    assert Food.objects.filter(source="sr28").count() == 20


def test_command_reports_skipped_rows_on_stderr():
    err = StringIO()
    call_command(
        "load_catalogue",
        "--source",
        "fdc",
        "--path",
        str(DATA / "fdc" / "fooddata.csv"),
        stdout=StringIO(),
        stderr=err,
    )
    assert "skipped fooddata.csv:2: empty foodName" in err.getvalue()


def test_command_with_a_missing_path_fails_cleanly(tmp_path: Path):
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="FOOD_DES"):
        call_command("load_catalogue", "--source", "sr28", "--path", str(tmp_path))
    assert Category.objects.count() == 0


def test_progress_line_shows_rate_and_eta():
    line = render(done=50, total=100, rows=5000, elapsed=2.0)
    assert "50%" in line and "2,500 rows/s" in line and "ETA 2s" in line
