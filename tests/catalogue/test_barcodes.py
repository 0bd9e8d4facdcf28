"""GET /v1/barcodes/{code}: a food by its GTIN (issue 42, point 2), on the release sample
of tests/support/fdc_release.py; both backends."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from keys.services import key_create
from tests.factories import AccountFactory, FoodFactory, MarketFactory
from tests.support import fdc_release as sample

pytestmark = pytest.mark.django_db


def _remaining(response) -> int:  # type: ignore[no-untyped-def]
    return int(response["RateLimit-Remaining"])


@pytest.mark.parametrize("code", ["009800895007", "0009800895007", "00009800895007"])
def test_a_upc_a_its_ean13_and_gtin14_find_the_same_food(release_small, taster, code):
    response = taster.get(f"/v1/barcodes/{code}")
    assert response.status_code == 200, response.content
    record = response.json()["data"]
    # Nutella is published twice with this GTIN: the newest publication wins.
    assert record["id"] == f"fdc-{sample.NUTELLA_NEW}"
    assert record["fdc_id"] == sample.NUTELLA_NEW
    assert record["branded"]["gtin"] == "00009800895007"
    assert record["branded"]["published"] == "2021-10-28"
    assert record["branded"]["links"] == {"barcode": "/v1/barcodes/00009800895007"}


def test_the_answer_is_the_record_read_by_id_with_its_etag(release_small, taster):
    by_code = taster.get("/v1/barcodes/013000006408")
    by_id = taster.get(f"/v1/foods/fdc-{sample.KETCHUP}")
    assert by_code.content == by_id.content
    assert by_code["ETag"] == by_id["ETag"]
    record = by_code.json()["data"]
    assert record["branded"]["ingredients"].startswith("TOMATO CONCENTRATE")
    assert (record["branded"]["serving_size"], record["branded"]["serving_size_unit"]) == (
        17.0,
        "g",
    )
    assert record["branded"]["household_serving"] == "1 Tbsp"
    again = taster.get("/v1/barcodes/013000006408", HTTP_IF_NONE_MATCH=by_code["ETag"])
    assert again.status_code == 304 and again.content == b""


def test_a_barcode_read_is_metered_as_one_record_read(release_small, taster):
    first = taster.get("/v1/barcodes/041512162664")
    second = taster.get("/v1/barcodes/041512162664")
    assert _remaining(first) - _remaining(second) == 1
    bad = taster.get("/v1/barcodes/041512162665")
    assert _remaining(second) - _remaining(bad) == 1  # a 400 counts like any read


def test_a_wrong_check_digit_is_a_400_naming_the_expected_digit(release_small, taster):
    response = taster.get("/v1/barcodes/009800895008")
    assert response.status_code == 400
    problem = response.json()
    assert problem["type"] == "/problems/invalid-parameter"
    assert problem["doc_url"].endswith("/docs#tag/invalid-parameter")
    assert problem["errors"][0]["parameter"] == "code"
    assert "its other digits call for 7" in problem["errors"][0]["detail"]


@pytest.mark.parametrize(
    ("code", "detail"),
    [
        ("98008950", "check digit"),  # 8 digits, wrong check digit
        ("0098008950", "8, 12, 13 or 14 digits, not 10"),
        ("000000009800895007", "8, 12, 13 or 14 digits, not 18"),
        ("0098-0089-5007", "digits only"),
        ("nutella", "digits only"),
    ],
)
def test_codes_that_are_not_gtins_are_400s(release_small, taster, code, detail):
    response = taster.get(f"/v1/barcodes/{code}")
    assert response.status_code == 400
    assert detail in response.json()["detail"]


def test_a_gtin_no_food_has_is_a_404(release_small, taster):
    response = taster.get("/v1/barcodes/5000159407236")
    assert response.status_code == 404
    assert response.json()["detail"] == (
        "No food with the barcode 05000159407236 (GTIN-14) in this catalogue."
    )


def test_without_a_release_loaded_the_404_says_where_barcodes_come_from(taster):
    FoodFactory(market=MarketFactory(code="US"))
    response = taster.get("/v1/barcodes/009800895007")
    assert response.status_code == 404
    problem = response.json()
    assert problem["type"] == "/problems/not-found"
    assert "load_catalogue --source fdc-release" in problem["detail"]


def test_a_taster_of_another_market_gets_what_a_record_read_gets(release_small):
    account = AccountFactory(market="IN")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_create(account=account, label="IN")[1])
    by_code = client.get("/v1/barcodes/009800895007")
    by_id = client.get(f"/v1/foods/fdc-{sample.NUTELLA_NEW}")
    assert by_code.status_code == by_id.status_code == 404
    assert by_code.json()["detail"] == by_id.json()["detail"]


def test_a_taster_without_a_market_is_asked_to_choose_one(release_small, taster_no_market):
    response = taster_no_market.get("/v1/barcodes/009800895007")
    assert response.status_code == 403
    assert response.json()["type"] == "/problems/market-not-selected"


def test_paid_tiers_read_barcodes_too(release_small, paid):
    response = paid.get("/v1/barcodes/034500151078")
    assert response.json()["data"]["name"] == "BUTTER"


def test_a_food_without_release_facts_has_null_branded_and_fdc_id(sr28_small, taster):
    record = taster.get("/v1/foods/sr28-01001").json()["data"]
    assert record["branded"] is None and record["fdc_id"] is None
