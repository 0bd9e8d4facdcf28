"""Records by id, ETag/304 and the caching headers (issue 3, points 3 and 4)."""

from __future__ import annotations

import ast
import importlib
import json
import random
from decimal import Decimal
from pathlib import Path

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from rest_framework.renderers import JSONRenderer

from catalogue import selectors
from catalogue.delivery import rendering, serializers
from catalogue.delivery.conditional import etag_of_bytes, is_not_modified, parse_if_none_match
from catalogue.models import Category, Food, FoodRendering, Nutrient
from tests.factories import FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db


def test_food_record_has_portions_and_every_measured_nutrient(sr28_small, taster):
    body = taster.get("/v1/foods/sr28-01001").json()["data"]
    assert body["id"] == "sr28-01001" and body["source"]["id"] == "01001"
    assert {"description": "1 tbsp", "gram_weight": 14.2} in body["portions"]
    protein = next(n for n in body["nutrients"] if n["id"] == 203)
    assert protein == {
        "id": 203, "number": "203", "name": "Protein", "unit": "g", "amount_per_100g": 0.85,
        "amount_per_serving": 0.0425,  # the serving: 1 pat, 5 g
    }  # fmt: skip
    assert body["serving"]["gram_weight"] == 5.0
    assert body["nutrients_per_serving"]["protein_g"] == 0.0425
    assert len(body["nutrients"]) == len(Food.objects.get(public_id="sr28-01001").nutrients)


def test_a_rendered_record_is_read_with_one_query_and_no_nutrient_table(sr28_small, taster):
    taster.get("/v1/foods/sr28-01001")  # warms everything else (e.g. the meter's seed)
    with CaptureQueriesContext(connection) as captured:
        assert taster.get("/v1/foods/sr28-01002").status_code == 200
    catalogue = [q["sql"] for q in captured if "catalogue_" in q["sql"]]
    assert len(catalogue) == 1 and "catalogue_foodrendering" in catalogue[0]


def test_changes_to_foods_nutrients_and_categories_are_served_on_the_next_read(sr28_small, taster):
    def record() -> dict:
        return taster.get("/v1/foods/sr28-01001").json()["data"]

    record()
    Nutrient.objects.filter(id=203).update(name="Protein (renamed)")
    assert {n["id"]: n["name"] for n in record()["nutrients"]}[203] == "Protein (renamed)"
    food = Food.objects.get(public_id="sr28-01001")
    food.name = "Butter, renamed"
    food.save()
    assert record()["name"] == "Butter, renamed"
    Category.objects.filter(pk=food.category_id).update(name="Dairy, renamed")
    assert record()["category"]["name"] == "Dairy, renamed"
    page = taster.get("/v1/foods?q=butter").json()["data"]
    assert {"Butter, renamed", "Dairy, renamed"} <= {f["name"] for f in page} | {
        f["category"]["name"] for f in page if f["category"]
    }


def test_served_bytes_and_tags_are_what_the_serializers_render(sr28_small, taster):
    """Pre-rendered bodies are byte for byte the dicts of catalogue/delivery/serializers.py as DRF
    renders them (orjson writes the same bytes for these values), with the record's tag
    the hash of the bytes served."""
    food = Food.objects.select_related("category").get(public_id="sr28-01001")
    nutrients = selectors.nutrients_by_id(ids=[int(k) for k in food.nutrients])
    body = {"data": serializers.food_detail(food, nutrients)}
    for _ in range(2):  # rendered on the first read, stored bytes on the second
        response = taster.get("/v1/foods/sr28-01001")
        assert response.content == JSONRenderer().render(body)
        assert response["ETag"] == etag_of_bytes(response.content)
        assert response["Content-Type"] == "application/json"
    # A page without a next link: main's cursors carry a timestamp (issue 14).
    page = taster.get("/v1/foods?q=butter&page_size=50")
    parsed = page.json()
    assert parsed["links"]["next"] is None
    ids = [f["id"] for f in parsed["data"]]
    rows = {r["public_id"]: r for r in Food.objects.values(*serializers.LIST_FIELDS)}
    expected = {
        "data": [serializers.food_summary(rows[i]) for i in ids],
        "links": parsed["links"],
        "meta": parsed["meta"],
    }
    assert page.content == JSONRenderer().render(expected)
    assert page["ETag"] == etag_of_bytes(page.content)
    again = taster.get("/v1/foods?q=butter&page_size=50")
    assert again["ETag"] == page["ETag"], (page.content, again.content)


def test_a_rendering_of_an_older_catalogue_version_is_never_served(sr28_small, taster):
    food = Food.objects.get(public_id="sr28-01001")
    stale = rendering.Rendering(
        food_id=food.pk,
        version=rendering.definitions_version() - 1,
        etag='"stale"',
        record=b'{"data":"stale"}',
        summary=b'{"stale":true}',
    )
    FoodRendering.objects.filter(food_id=food.pk).delete()
    rendering._store([stale])
    response = taster.get("/v1/foods/sr28-01001")
    assert response["ETag"] != '"stale"' and response.json()["data"]["id"] == "sr28-01001"
    assert b"stale" not in taster.get("/v1/foods?q=butter").content


def test_a_rendering_made_by_other_code_is_never_served(sr28_small, taster):
    """After a deploy that changes how foods render (another ``render_format``), none of
    the bytes the code before it stored are served, though no catalogue row changed."""
    food = Food.objects.get(public_id="sr28-01001")
    old_code = rendering.Rendering(
        food_id=food.pk,
        version=rendering.definitions_version(),
        etag='"old-code"',
        record=b'{"data":"old code"}',
        summary=b'{"old code":true}',
        format="0123456789abcdef",
    )
    rendering._store([old_code])
    response = taster.get("/v1/foods/sr28-01001")
    assert response["ETag"] != '"old-code"' and response.json()["data"]["id"] == "sr28-01001"
    rendering._store([old_code])
    assert b"old code" not in taster.get("/v1/foods?q=butter").content
    stored = FoodRendering.objects.get(food_id=food.pk)  # rendered again by this code
    assert stored.format == rendering.render_format() and b"old code" not in stored.body()


def test_the_format_changes_with_the_code_and_the_settings_that_shape_the_bytes(tmp_path):
    module = tmp_path / "serializers.py"
    module.write_text("def food_summary(row):\n    return row\n")
    before = rendering.format_fingerprint([module], "3.16", (False, True))
    assert rendering.format_fingerprint([module], "3.16", (False, True)) == before
    assert rendering.format_fingerprint([module], "3.17", (False, True)) != before
    assert rendering.format_fingerprint([module], "3.16", (True, True)) != before
    module.write_text("def food_summary(row):\n    return {**row, 'new': 1}\n")
    assert rendering.format_fingerprint([module], "3.16", (False, True)) != before
    served = {Path(m.__file__) for m in (serializers, rendering)}
    assert served <= {
        Path(importlib.import_module(name).__file__) for name in rendering.FORMAT_MODULES
    }
    # Every catalogue module the serializers read shapes the bytes, so it is listed.
    read = {
        node.module
        for node in ast.walk(ast.parse(Path(serializers.__file__).read_text()))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("catalogue")
    }
    assert read and read <= set(rendering.FORMAT_MODULES)


def test_a_load_renders_every_food(sr28_small):
    version = rendering.definitions_version()
    current = FoodRendering.objects.filter(version=version, format=rendering.render_format())
    assert current.count() == Food.objects.count()
    Food.objects.filter(public_id="sr28-01001").delete()
    assert rendering.render_all() == Food.objects.count()
    assert FoodRendering.objects.count() == Food.objects.count()  # the old rows are gone


@pytest.mark.parametrize(
    "value",
    [
        "".join(chr(i) for i in range(160)),
        "line\u2028para\u2029end",
        'quote " backslash \\ slash / é 😀 \ue000',
        None,
        True,
        12345678901234,
    ],
)
def test_links_and_meta_encode_exactly_like_drf(value):
    data = {"q": value, "nested": {"v": [value, 1]}, "n": None}
    assert rendering.dumps(data) == JSONRenderer().render(data)


def test_a_record_with_tiny_amounts_parses_to_what_drf_renders(sr28_small, taster):
    """orjson spells a float under 1e-4 in plain notation (DRF: ``5e-05``): the same
    number, so the record parses to exactly what the serializers made."""
    food = Food.objects.get(public_id="sr28-01001")
    key = next(iter(food.nutrients))
    food.nutrients = {**food.nutrients, key: 5e-05}
    food.save()
    food = Food.objects.select_related("category").get(pk=food.pk)
    nutrients = selectors.nutrients_by_id(ids=[int(k) for k in food.nutrients])
    expected = JSONRenderer().render({"data": serializers.food_detail(food, nutrients)})
    response = taster.get("/v1/foods/sr28-01001")
    assert b"5e-05" in expected and b"0.00005" in response.content
    assert json.loads(response.content) == json.loads(expected)
    assert response["ETag"] == etag_of_bytes(response.content)


def test_dumps_falls_back_to_drf_for_what_orjson_refuses():
    data = {"amount": Decimal("1.50"), "nested": [Decimal("2")]}
    assert rendering.dumps(data) == JSONRenderer().render(data)


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


def test_a_worker_serves_hot_reads_from_memory_until_the_catalogue_version_changes(
    sr28_small, unthrottled, settings
):
    settings.CATALOGUE_VERSION_SECONDS = 60
    paths = ("/v1/foods/sr28-01001", "/v1/foods?q=butter")
    first = {path: unthrottled.get(path).content for path in paths}
    with CaptureQueriesContext(connection) as captured:
        assert {path: unthrottled.get(path).content for path in paths} == first
    assert not [q for q in captured if "catalogue_" in q["sql"]]
    food = Food.objects.get(public_id="sr28-01001")
    food.name = "Butter, renamed"
    food.save()
    # Within CATALOGUE_VERSION_SECONDS the worker still answers what it had ...
    assert unthrottled.get(paths[0]).content == first[paths[0]]
    rendering.local_records.checked = rendering.local_pages.checked = float("-inf")
    # ... and once it reads the version again, the change.
    assert unthrottled.get(paths[0]).json()["data"]["name"] == "Butter, renamed"
    assert b"Butter, renamed" in unthrottled.get(paths[1]).content


def test_a_worker_serves_suggestions_from_memory_until_the_catalogue_version_changes(
    sr28_small, unthrottled, settings
):
    settings.CATALOGUE_VERSION_SECONDS = 60
    first = unthrottled.get("/v1/suggest?q=butt")
    assert "butter" in [s["text"] for s in first.json()["data"]]
    with CaptureQueriesContext(connection) as captured:
        again = unthrottled.get("/v1/suggest?q=butt")
    assert (again.content, again["ETag"]) == (first.content, first["ETag"])
    assert not [q for q in captured if "catalogue_" in q["sql"]]
    assert (
        unthrottled.get("/v1/suggest?q=butt", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    )
    market = Food.objects.get(public_id="sr28-01001").market
    FoodFactory(name="Lettuce, butterhead (includes boston and bibb types), raw", market=market)
    rendering.local_records.checked = rendering.local_pages.checked = float("-inf")
    assert "butterhead" in [s["text"] for s in unthrottled.get("/v1/suggest?q=butt").json()["data"]]


@pytest.mark.django_db(transaction=True)
def test_a_load_sized_store_keeps_a_newer_rendering_and_replaces_older_ones():
    """A batch of renderings (COPY on PostgreSQL, a VALUES list on SQLite) upserts every
    row, except over a rendering made from a newer revision (a read's on-the-spot render
    that finished first)."""
    market = MarketFactory()
    foods = FoodFactory.create_batch(rendering.COPY_FROM + 20, market=market)
    version = rendering.definitions_version()
    rendering.render_ids([f.pk for f in foods])
    newest = foods[0]
    Food.objects.filter(pk=newest.pk).update(revision=F("revision") + 5, name="Renamed")
    rendering.render_foods([newest.pk])  # a read's render, ahead of the batch below
    outdated = [
        rendering.Rendering(
            food_id=f.pk, version=version, revision=0, etag='"old"', record=b"{}", summary=b"{}"
        )
        for f in foods
    ]
    FoodRendering.objects.exclude(food_id=newest.pk).delete()
    rendering._store(outdated)
    stored = dict(FoodRendering.objects.values_list("food_id", "etag"))
    assert len(stored) == len(foods)
    assert stored[newest.pk] != '"old"'
    assert b"Renamed" in FoodRendering.objects.get(food_id=newest.pk).body()
    assert {stored[f.pk] for f in foods[1:]} == {'"old"'}


RENDER_IN_A_POOL = """
import django
django.setup()
from catalogue.delivery import rendering
from catalogue.models import Food
rendering.PARALLEL_FROM, rendering.PARALLEL_CHUNK = 1, 3
ids = list(Food.objects.values_list("id", flat=True))
print(sum(rendering.render_ids(ids, processes=2) for _ in range(5)))
"""


@pytest.mark.server
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="the pool renders on PostgreSQL")
def test_a_pool_of_renderers_ends_and_stores_every_food():
    """A large render outside a transaction is shared among forked processes: five
    renders in a row each end (the pool is closed, its workers leave on their own, never
    terminated mid-queue) and every food's rendering is stored. Run as a process of its
    own, as manage.py runs it: forking the test worker would fork its threads too."""
    import subprocess
    import sys

    from tests.support.servers import ROOT, server_env

    foods = FoodFactory.create_batch(20, market=MarketFactory())
    done = subprocess.run(
        [sys.executable, "-c", RENDER_IN_A_POOL],
        cwd=ROOT,
        env=server_env(DJANGO_SETTINGS_MODULE="foodservice.settings"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == str(5 * len(foods))
    current = rendering.definitions_version()
    assert FoodRendering.objects.filter(
        version=current, food_id__in=[f.pk for f in foods]
    ).count() == len(foods)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's TOAST")
def test_a_rendering_stays_in_its_row(db):
    """Issue 41.2: a record is stored compressed, and its row is left whole (migration
    0018): reading it is one heap fetch, never a second lookup in the TOAST table."""
    words = random.Random(41).choices(["salt", "oat", "whey", "soy", "malt", "pea"], k=2000)
    ingredients = ", ".join(f"{word}{i}" for i, word in enumerate(words))
    food = FoodFactory(source="fdc", data_type="branded", fdc_id=9041, ingredients=ingredients)
    rendering.render_foods([food.pk])
    stored = FoodRendering.objects.get(food_id=food.pk)
    assert stored.body().count(b"whey") > 200
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT octet_length(record) + octet_length(summary), reltoastrelid::regclass "
            "FROM catalogue_foodrendering, pg_class "
            "WHERE food_id = %s AND relname = 'catalogue_foodrendering'",
            [food.pk],
        )
        size, toast = cursor.fetchone()
        assert size > 2100  # past the default threshold: it would have been moved out
        cursor.execute(f"SELECT count(*) FROM {toast}")  # noqa: S608 (a relation name)
        assert cursor.fetchone()[0] == 0
