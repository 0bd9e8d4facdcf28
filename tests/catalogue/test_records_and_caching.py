"""Records by id, ETag/304 and the caching headers (issue 3, points 3 and 4)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.conditional import is_not_modified, parse_if_none_match
from catalogue.models import Food, Nutrient
from catalogue.selectors import catalogue_cache_forget

pytestmark = pytest.mark.django_db


def test_food_record_has_portions_and_every_measured_nutrient(sr28_small, taster):
    body = taster.get("/v1/foods/sr28-01001").json()["data"]
    assert body["id"] == "sr28-01001" and body["source"] == {"name": "sr28", "id": "01001"}
    assert {"description": "1 tbsp", "gram_weight": 14.2} in body["portions"]
    protein = next(n for n in body["nutrients"] if n["id"] == 203)
    assert protein == {
        "id": 203, "number": "203", "name": "Protein", "unit": "g", "amount_per_100g": 0.85,
    }  # fmt: skip
    assert len(body["nutrients"]) == len(Food.objects.get(public_id="sr28-01001").nutrients)


def test_record_reads_take_the_nutrient_table_from_the_shared_cache(sr28_small, taster):
    def queries_of(path: str) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert taster.get(path).status_code == 200
        return len(captured)

    taster.get("/v1/foods/sr28-01001")  # warms everything else (e.g. the meter's seed)
    catalogue_cache_forget()
    cold = queries_of("/v1/foods/sr28-01002")
    assert queries_of("/v1/foods/sr28-01003") == cold - 1  # no nutrient query once cached
    Nutrient.objects.filter(id=203).update(name="Protein (renamed)")
    catalogue_cache_forget()  # what a load does when it ends
    body = taster.get("/v1/foods/sr28-01001").json()["data"]
    assert {n["id"]: n["name"] for n in body["nutrients"]}[203] == "Protein (renamed)"


def test_nutrient_and_category_records(sr28_small, taster):
    nutrient = taster.get("/v1/nutrients/203").json()["data"]
    assert (nutrient["name"], nutrient["unit"], nutrient["number"]) == ("Protein", "g", "203")
    category = taster.get("/v1/categories/dairy-and-egg-products").json()["data"]
    assert category["name"] == "Dairy and Egg Products" and category["usda_code"] == "0100"


@pytest.mark.parametrize(
    "path",
    ["/v1/foods/sr28-99999", "/v1/nutrients/99999", "/v1/nutrients/abc", "/v1/categories/nope",
     "/v1/recipes/1", "/v1/foods/sr28-01001/extra"],
)  # fmt: skip
def test_unknown_resource_or_id_is_a_404_problem(sr28_small, taster, path):
    response = taster.get(path)
    assert response.status_code == 404
    assert response.json()["type"] == "/problems/not-found"


@pytest.mark.parametrize(
    "path", ["/v1/foods?q=butter", "/v1/foods/sr28-01001", "/v1/nutrients/203"]
)
def test_responses_carry_etag_private_cache_control_and_vary(sr28_small, taster, path):
    response = taster.get(path)
    assert response["ETag"].startswith('"')
    assert "private" in response["Cache-Control"]
    vary = {v.strip().lower() for v in response["Vary"].split(",")}
    assert {"x-api-key", "authorization"} <= vary


@pytest.mark.parametrize("path", ["/v1/foods?q=butter", "/v1/foods/sr28-01001"])
def test_if_none_match_with_the_current_tag_is_304_without_body(sr28_small, taster, path):
    etag = taster.get(path)["ETag"]
    for header in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        response = taster.get(path, HTTP_IF_NONE_MATCH=header)
        assert response.status_code == 304, header
        assert response.content == b"" and response["ETag"] == etag
        # Issue 14.1: RFC 9110 allows Content-Length on a 304 only if it equals the
        # 200's; "0" made caches serve the stored body as empty.
        assert not response.has_header("Content-Length"), header


def test_stale_tag_gets_the_full_page(sr28_small, taster):
    response = taster.get("/v1/foods?q=butter", HTTP_IF_NONE_MATCH='"stale"')
    assert response.status_code == 200 and response.json()["data"]


def test_etag_is_stable_and_changes_with_the_representation(sr28_small, taster):
    first = taster.get("/v1/foods/sr28-01001")["ETag"]
    assert taster.get("/v1/foods/sr28-01001")["ETag"] == first
    Food.objects.filter(public_id="sr28-01001").update(name="Butter, salted (renamed)")
    assert taster.get("/v1/foods/sr28-01001")["ETag"] != first


def test_304_is_counted_like_a_200(sr28_small, taster):
    etag = taster.get("/v1/foods/sr28-01001")["ETag"]
    before = int(taster.get("/v1/foods/sr28-01001")["RateLimit-Remaining"])
    response = taster.get("/v1/foods/sr28-01001", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert int(response["RateLimit-Remaining"]) == before - 1


@pytest.mark.parametrize(
    ("header", "tags"),
    [
        ('"a"', ['"a"']),
        ('W/"a", "b"', ['"a"', '"b"']),
        ("*", ["*"]),
        ('"a,b" ,W/"c"', ['"a,b"', '"c"']),
        ('garbage, "d"', ['"d"']),
        ('"unterminated', []),
        ("", []),
    ],
)
def test_if_none_match_parsing(header, tags):
    assert parse_if_none_match(header) == tags


def test_weak_comparison_matches_weak_and_strong_forms():
    assert is_not_modified(if_none_match='W/"x"', etag='"x"')
    assert not is_not_modified(if_none_match='"y"', etag='"x"')
    assert not is_not_modified(if_none_match=None, etag='"x"')
