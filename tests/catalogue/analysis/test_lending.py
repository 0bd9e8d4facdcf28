"""Borrowed household measures (catalogue/analysis/lending.py, issue 38.1): an IFCT food
of market IN weighs a household unit with the measure of its SR28 equivalent, on real
rows (tests/catalogue/data/ifct and the SR28 sample tests/catalogue/data/analysis), on
both backends; and the table's form."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from rest_framework.test import APIClient

from catalogue.analysis import lending
from catalogue.analysis.selectors import analysis_run
from catalogue.importers.load import catalogue_load
from catalogue.models import Food
from keys.services import key_create
from tests.catalogue.conftest import DATA
from tests.factories import AccountFactory
from tests.support.shared_rows import shared_rows

GHEE_PORTION = "1 tbsp = 12.8 g (measure of Butter oil, anhydrous)"


def load_both() -> None:
    catalogue_load(source="sr28", path=DATA / "analysis" / "sr28")
    catalogue_load(source="ifct", path=DATA / "ifct" / "compositions.csv")


@pytest.fixture(scope="module")
def both_markets(django_db_setup: None, django_db_blocker) -> Iterator[None]:
    """The SR28 sample (market US) and the IFCT sample (market IN), loaded once."""
    yield from shared_rows(django_db_blocker, load_both)


def test_the_table_maps_each_borrower_once_to_an_sr28_food():
    table = lending.equivalents()
    assert len(table) >= 200
    assert all(re.fullmatch(r"sr28-\d{5}", lender) for lender in table.values())
    assert table["ifct-T013"] == "sr28-01003"  # Ghee -> Butter oil, anhydrous
    rows = [line for line in lending.TABLE.read_text().splitlines() if line[:1] not in "#"]
    assert len(rows) - 1 == len(table)  # the header, then no borrower twice


@pytest.mark.django_db
def test_the_tables_names_are_the_catalogues(both_markets):
    """Every pair whose foods the samples hold names them as the catalogue does."""
    names = dict(Food.objects.values_list("public_id", "name"))
    checked = 0
    with lending.TABLE.open(encoding="utf-8") as handle:
        for line in handle:
            if line.startswith(("#", "borrower")) or not line.strip():
                continue
            borrower, lender = line.split(",")[:2]
            if borrower in names and lender in names:
                assert line.rstrip("\n").endswith(
                    ",".join(f'"{n}"' if "," in n else n for n in (names[borrower], names[lender]))
                )
                checked += 1
    assert checked >= 1


@pytest.mark.parametrize(
    ("name", "aliases", "asked", "equivalent", "named"),
    [
        ("Onion, big", "", "onions", False, True),
        ("Red gram, dal", " arhar dal | toor dal ", "red gram dal", False, True),
        ("Ladies finger", " bhindi | okra ", "bhindi", False, True),
        ("Brinjal-1", "", "brinjal", False, True),  # a variety's number left out
        ("Beet root", "", "beetroot", False, True),  # run together
        ("Chakla", " butter fish | chakla ", "butter", False, False),  # found by a local name
        ("Water Chestnut", " singhara ", "water", False, False),
        ("Lettuce", "", "salt", True, False),
        ("Turmeric powder", "", "turmeric", False, False),
        ("Turmeric powder", "", "turmeric", True, True),  # the table vouches for it
        ("Corn oil", "", "oil", True, True),
    ],
)
def test_a_food_lends_only_when_the_line_names_it(name, aliases, asked, equivalent, named):
    assert lending.names_food(name, aliases, asked, equivalent=equivalent) is named


@pytest.mark.django_db
def test_an_ifct_food_borrows_its_sr28_equivalents_measure_in_market_in(both_markets):
    analysis = analysis_run(lines=["1 tbsp ghee", "2 tbsp ghee", "50 g ghee"], market="IN")
    one, two, grams = analysis.lines
    assert one["status"] == "matched", one
    assert one["food"]["id"] == "ifct-T013"
    assert one["grams"] == 12.8
    assert one["portion"] == GHEE_PORTION
    assert two["grams"] == 25.6
    assert grams["grams"] == 50.0 and grams["portion"] is None  # a mass needs no measure
    # the nutrients are the IFCT food's, scaled to the borrowed grams
    ghee = Food.objects.get(public_id="ifct-T013")
    assert ghee.fat_g is not None
    assert one["nutrients"]["fat_g"] == round(ghee.fat_g * 0.128, 2)


@pytest.mark.django_db
def test_every_market_matches_the_measures_own_food_when_it_is_a_candidate(both_markets):
    """A paid tier's lines meet both records: the SR28 food the table names as the same
    food, with its own measure, is matched rather than lending it."""
    line = analysis_run(lines=["1 tbsp ghee"], market=None).lines[0]
    assert line["status"] == "matched", line
    assert line["grams"] == 12.8


@pytest.mark.django_db
def test_a_food_the_line_does_not_name_borrows_nothing(both_markets):
    line = analysis_run(lines=["1 cup qwertyuiop"], market="IN").lines[0]
    assert line["status"] == "unmatched"


@pytest.mark.django_db
def test_a_taster_of_market_in_analyses_a_tbsp_of_ghee(both_markets):
    client = APIClient()
    client.credentials(
        HTTP_X_API_KEY=key_create(account=AccountFactory(market="IN"), label="in")[1]
    )
    response = client.post("/v1/analysis", {"ingredients": ["1 tbsp ghee"]}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["meta"]["market"] == "IN"
    line = body["data"]["ingredients"][0]
    assert (line["status"], line["food"]["id"], line["grams"]) == ("matched", "ifct-T013", 12.8)
    assert line["portion"] == GHEE_PORTION
    assert body["data"]["totals"]["fat_g"] == line["nutrients"]["fat_g"]
