"""Many foods in one call and only the fields asked for (issue 42, points 3 and 4):
``GET /v1/foods?ids=``, ``fields=`` and ``nutrients=`` on records, pages and batches."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from catalogue.batch import MAX_IDS
from catalogue.models import Food
from keys.services import key_create
from tests.factories import AccountFactory, FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db


def _ids(n: int) -> list[str]:
    return list(Food.objects.order_by("public_id").values_list("public_id", flat=True)[:n])


def _remaining(response) -> int:
    return int(response["RateLimit-Remaining"])


@pytest.fixture
def small_quota(db: None) -> APIClient:
    """An Executive Chef key with 12 requests a rolling day, unthrottled."""
    account = AccountFactory(tier="executive_chef", custom_quota=12, custom_window="day", market="")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_create(account=account, label="small quota")[1])
    return client


# --- batches ---------------------------------------------------------------------------


def test_a_batch_answers_the_stored_records_in_the_order_asked(sr28_small, taster):
    ids = _ids(3)[::-1]
    response = taster.get("/v1/foods", {"ids": ",".join(ids)})
    assert response.status_code == 200
    body = response.json()
    assert [r["id"] for r in body["data"]] == ids
    single = taster.get(f"/v1/foods/{ids[0]}").content
    # the very bytes of the single read, spliced in
    assert single[len(b'{"data":') : -1] in response.content
    assert body["meta"] == {"ids": 3, "count": 3, "missing": [], "market": "US"}


def test_unknown_ids_are_listed_as_missing_and_duplicates_collapse(sr28_small, taster):
    known = _ids(1)[0]
    response = taster.get("/v1/foods", {"ids": f"{known},sr28-99999,{known}"})
    assert response.status_code == 200
    assert [r["id"] for r in response.json()["data"]] == [known]
    assert response.json()["meta"]["missing"] == ["sr28-99999"]


def test_foods_of_another_market_are_missing_as_a_single_read_is_a_404(sr28_small, taster, paid):
    elsewhere = FoodFactory(market=MarketFactory(code="CA", name="Canada")).public_id
    known = _ids(1)[0]
    assert taster.get(f"/v1/foods/{elsewhere}").status_code == 404
    body = taster.get("/v1/foods", {"ids": f"{known},{elsewhere}"}).json()
    assert body["meta"]["missing"] == [elsewhere]
    body = paid.get("/v1/foods", {"ids": f"{known},{elsewhere}"}).json()
    assert body["meta"]["missing"] == [] and body["meta"]["market"] is None


def test_a_taster_batches_without_q_but_needs_a_market(sr28_small, taster, taster_no_market):
    assert taster.get("/v1/foods", {"ids": _ids(1)[0]}).status_code == 200
    response = taster_no_market.get("/v1/foods", {"ids": _ids(1)[0]})
    assert response.status_code == 403
    assert response.json()["type"].endswith("market-not-selected")


@pytest.mark.parametrize(
    ("params", "parameter", "detail"),
    [
        ({"ids": ",".join(f"sr28-{n:05d}" for n in range(MAX_IDS + 1))}, "ids", "At most 50"),
        ({"ids": "sr28-01001,not an id"}, "ids", "Not a food id"),
        ({"ids": " , "}, "ids", "at least one"),
        ({"ids": "sr28-01001", "q": "butter"}, "q", "Not with ids"),
        ({"ids": "sr28-01001", "page_size": "5"}, "page_size", "Not with ids"),
        ({"ids": "sr28-01001", "fields": "name,colour"}, "fields", "valid fields: id, name"),
    ],
)
def test_bad_batches_are_400_problems_counted_as_one(
    sr28_small, unthrottled, params, parameter, detail
):
    before = _remaining(unthrottled.get("/v1/foods/sr28-01001"))
    response = unthrottled.get("/v1/foods", params)
    assert response.status_code == 400
    problem = response.json()
    assert problem["errors"][0]["parameter"] == parameter
    assert detail in problem["errors"][0]["detail"]
    assert problem["doc_url"].endswith("#tag/invalid-parameter")
    assert _remaining(response) == before - 1


def test_fifty_distinct_ids_are_one_batch(sr28_small, unthrottled):
    ids = [f"sr28-{n:05d}" for n in range(MAX_IDS)]
    response = unthrottled.get("/v1/foods", {"ids": ",".join([*ids, ids[0]])})
    assert response.status_code == 200 and response.json()["meta"]["ids"] == MAX_IDS


# --- counting --------------------------------------------------------------------------


def test_a_batch_counts_one_unit_an_id_and_is_refused_whole_at_the_quota(
    sr28_small, small_quota, clock
):
    ids = _ids(6)
    first = small_quota.get("/v1/foods", {"ids": ",".join([*ids, "sr28-99999"])})
    assert first.status_code == 200 and _remaining(first) == 12 - 7  # missing ids count
    refused = small_quota.get("/v1/foods", {"ids": ",".join(ids)})
    assert refused.status_code == 429
    assert refused.json()["type"].endswith("quota-exceeded")
    assert _remaining(refused) == 5  # refused whole: nothing counted
    assert int(refused["Retry-After"]) > 0
    fits = small_quota.get("/v1/foods", {"ids": ",".join(ids[:5])})
    assert fits.status_code == 200 and _remaining(fits) == 0


def test_a_batch_takes_its_tokens_and_an_empty_bucket_refuses_it_whole(sr28_small, taster, clock):
    ids = _ids(10)
    assert taster.get("/v1/foods", {"ids": ",".join(ids)}).status_code == 200
    refused = taster.get("/v1/foods", {"ids": ",".join(ids[:3])})
    assert refused.status_code == 429 and refused.json()["type"].endswith("burst-limit-exceeded")
    assert refused["Retry-After"] == "3" and "RateLimit-Remaining" not in refused
    clock.shift(3)
    again = taster.get("/v1/foods", {"ids": ",".join(ids[:3])})
    assert again.status_code == 200 and _remaining(again) == 250 - 13


def test_a_304_on_a_batch_counts_its_units(sr28_small, unthrottled):
    ids = ",".join(_ids(4))
    first = unthrottled.get("/v1/foods", {"ids": ids})
    again = unthrottled.get("/v1/foods", {"ids": ids}, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    assert _remaining(again) == _remaining(first) - 4
    assert again["Cache-Control"] == first["Cache-Control"]


def test_a_batch_etag_changes_with_a_member_and_the_projection(sr28_small, unthrottled):
    ids = _ids(3)
    tag = unthrottled.get("/v1/foods", {"ids": ",".join(ids)})["ETag"]
    assert unthrottled.get("/v1/foods", {"ids": ",".join(ids)})["ETag"] == tag
    shown = unthrottled.get("/v1/foods", {"ids": ",".join(ids), "fields": "name"})["ETag"]
    assert shown != tag
    Food.objects.filter(public_id=ids[1]).update(name="Renamed")
    assert unthrottled.get("/v1/foods", {"ids": ",".join(ids)})["ETag"] != tag


# --- projections -----------------------------------------------------------------------


def test_fields_keep_the_named_fields_and_sub_fields_of_a_record(sr28_small, taster):
    params = {"fields": "name,nutrients_per_100g.protein_g,portions,nutrients.amount_per_100g"}
    data = taster.get("/v1/foods/sr28-01001", params).json()["data"]
    assert set(data) == {"id", "name", "nutrients_per_100g", "portions", "nutrients"}
    assert data["nutrients_per_100g"] == {"protein_g": 0.85}
    assert {"description": "1 tbsp", "gram_weight": 14.2} in data["portions"]
    assert {"amount_per_100g": 0.85} in data["nutrients"]
    assert all(set(n) == {"amount_per_100g"} for n in data["nutrients"])


def test_nutrients_keep_only_those_by_id_or_headline_key(sr28_small, taster):
    data = taster.get("/v1/foods/sr28-01001", {"nutrients": "203,energy_kcal"}).json()["data"]
    assert sorted(n["id"] for n in data["nutrients"]) == [203, 208]
    assert set(data["nutrients_per_100g"]) == {"protein_g", "energy_kcal"}
    assert set(data["nutrients_per_serving"]) == {"protein_g", "energy_kcal"}
    assert data["name"]  # the other fields stay


def test_a_record_projection_has_its_own_etag_and_304(sr28_small, taster):
    whole = taster.get("/v1/foods/sr28-01001")
    named = taster.get("/v1/foods/sr28-01001", {"fields": "name"})
    assert named["ETag"] != whole["ETag"]
    assert taster.get("/v1/foods/sr28-01001", {"fields": "name"})["ETag"] == named["ETag"]
    hit = taster.get("/v1/foods/sr28-01001", {"fields": "name"}, HTTP_IF_NONE_MATCH=named["ETag"])
    assert hit.status_code == 304
    miss = taster.get("/v1/foods/sr28-01001", {"fields": "id"}, HTTP_IF_NONE_MATCH=named["ETag"])
    assert miss.status_code == 200 and miss.json() == {"data": {"id": "sr28-01001"}}


def test_a_page_projects_its_rows_and_keeps_the_projection_in_its_links(sr28_small, taster):
    params = {"q": "butter", "fields": "name,nutrients_per_100g.fat_g", "page_size": 2}
    body = taster.get("/v1/foods", params).json()
    assert body["data"] and all(
        set(r) == {"id", "name", "nutrients_per_100g"} for r in body["data"]
    )
    assert all(set(r["nutrients_per_100g"]) == {"fat_g"} for r in body["data"])
    assert "fields=" in body["links"]["next"]
    assert taster.get(body["links"]["next"]).json()["data"][0].keys() == body["data"][0].keys()
    whole = taster.get("/v1/foods", {"q": "butter", "page_size": 2})
    assert whole["ETag"] != taster.get("/v1/foods", params)["ETag"]


def test_a_batch_projects_every_record(sr28_small, taster):
    ids = ",".join(_ids(3))
    body = taster.get("/v1/foods", {"ids": ids, "fields": "name", "nutrients": "203"}).json()
    assert all(set(r) == {"id", "name"} for r in body["data"])


@pytest.mark.parametrize(
    ("path", "params", "parameter", "detail"),
    [
        ("/v1/foods/sr28-01001", {"fields": "colour"}, "fields", "valid fields: id, name"),
        ("/v1/foods/sr28-01001", {"fields": "category.colour"}, "fields", "sub-fields of"),
        ("/v1/foods/sr28-01001", {"fields": "serving.a.b"}, "fields", "sub-fields of"),
        ("/v1/foods/sr28-01001", {"nutrients": "protein"}, "nutrients", "headline keys"),
        ("/v1/foods", {"q": "butter", "fields": "portions"}, "fields", "valid fields"),
        ("/v1/foods", {"q": "butter", "fields": ""}, "fields", "at least one"),
    ],
)
def test_unknown_fields_are_400_problems_naming_the_valid_ones(
    sr28_small, taster, path, params, parameter, detail
):
    response = taster.get(path, params)
    assert response.status_code == 400
    assert response.json()["errors"][0]["parameter"] == parameter
    assert detail in response.json()["errors"][0]["detail"]


def test_list_parameters_may_be_repeated_as_generated_clients_send_them(sr28_small, paid):
    """openapi-python-client (make lint) and requests/httpx given a list send
    ``ids=a&ids=b``; the schema's form is ``ids=a,b``: both name the same list, for the
    batch, its projection and the search's list filters alike."""
    ids = _ids(3)
    comma = paid.get("/v1/foods", {"ids": ",".join(ids), "fields": "id,name"})
    repeated = paid.get(
        "/v1/foods?" + "&".join([*(f"ids={i}" for i in ids), "fields=id", "fields=name"])
    )
    assert comma.status_code == repeated.status_code == 200
    assert repeated.json() == comma.json()
    assert [set(r) for r in repeated.json()["data"]] == [{"id", "name"}] * 3
    search = paid.get("/v1/foods?data_type=sr_legacy&data_type=branded&q=butter").json()
    same = paid.get("/v1/foods?data_type=sr_legacy,branded&q=butter").json()
    assert search["data"] and (search["data"], search["meta"]) == (same["data"], same["meta"])
    # Any other parameter is still given once.
    twice = paid.get("/v1/foods?q=butter&q=milk")
    assert twice.status_code == 400 and twice.json()["errors"][0]["parameter"] == "q"
