"""The OpenAPI document (issue 6, point 1): served without a key, it describes every
/v1 operation with its parameters, bodies, problems and headers."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import get_resolver, reverse
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from catalogue.nutrients import HEADLINES
from catalogue.selectors import catalogue_cache_forget
from core import problems
from core.openapi import RATELIMIT_HEADERS, problem_component_name
from tests.factories import FoodFactory, MarketFactory

METERED = [
    "/v1/foods",
    "/v1/suggest",
    "/v1/foods/{public_id}",
    "/v1/barcodes/{code}",
    "/v1/nutrients/{nutrient_id}",
    "/v1/categories/{slug}",
    "/v1/sources",
    "/v1/nutrients",
    "/v1/categories",
]
OPERATIONS = [
    *((path, "get") for path in METERED),
    ("/v1/market", "get"),
    ("/v1/market", "put"),
    ("/v1/usage", "get"),
    ("/v1/analysis", "post"),
    ("/v1/usage/history", "get"),
    ("/v1/usage/outcomes", "get"),
    ("/v1/usage/requests", "get"),
]


def problem_kinds(operation: dict[str, Any], status: str) -> set[str]:
    """The problem types an operation documents for ``status``."""
    content = operation["responses"][status]["content"]
    schema = content["application/problem+json"]["schema"]
    refs = [s["$ref"] for s in schema.get("oneOf", [schema])]
    return {ref.rsplit("/", 1)[1] for ref in refs}


def names(*classes: type[problems.Problem]) -> set[str]:
    return {problem_component_name(cls) for cls in classes}


@pytest.mark.django_db
def test_the_schema_is_served_without_a_key_and_ignores_a_bad_one() -> None:
    client = APIClient()
    assert client.get("/openapi.json").status_code == 200
    response = client.get("/openapi.json", HTTP_X_API_KEY="svc_sk_live_nonsense")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert "RateLimit-Limit" not in response


def v1_routes() -> list[str]:
    """Every named /v1 route, as a path with ``x`` for each URL parameter."""
    (v1,) = [r for r in get_resolver().url_patterns if str(r.pattern) == "v1/"]
    paths = []
    for route in v1.url_patterns:
        for leaf in getattr(route, "url_patterns", [route]):
            if leaf.name:
                paths.append(reverse(f"v1:{leaf.name}", args=["x"] * len(leaf.pattern.converters)))
    return paths


def test_every_v1_route_is_described(openapi: dict[str, Any]) -> None:
    templates = [re.compile(re.sub(r"\{[^}]+\}", "[^/]+", path) + "$") for path in openapi["paths"]]
    routes = v1_routes()
    assert len(routes) == len(openapi["paths"])
    for route in routes:
        assert any(t.match(route) for t in templates), route
    described = {(path, method) for path, item in openapi["paths"].items() for method in item}
    assert described == set(OPERATIONS)


@pytest.mark.parametrize(("path", "method"), OPERATIONS)
def test_every_operation_accepts_either_key_header(
    openapi: dict[str, Any], path: str, method: str
) -> None:
    operation = openapi["paths"][path][method]
    assert operation["security"] == [{"ApiKeyHeader": []}, {"BearerAuth": []}]
    assert names(problems.Unauthorized) == problem_kinds(operation, "401")
    assert operation["responses"]["401"]["headers"]["WWW-Authenticate"]["required"] is True


def test_both_key_forms_are_security_schemes(openapi: dict[str, Any]) -> None:
    schemes = openapi["components"]["securitySchemes"]
    assert schemes["ApiKeyHeader"] | {"description": ""} == {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": "",
    }
    assert (schemes["BearerAuth"]["type"], schemes["BearerAuth"]["scheme"]) == ("http", "bearer")
    assert "svc_sk_live_" in schemes["BearerAuth"]["description"]


@pytest.mark.parametrize("path", METERED)
def test_metered_reads_document_both_429s_and_the_ratelimit_headers(
    openapi: dict[str, Any], path: str
) -> None:
    operation = openapi["paths"][path]["get"]
    assert problem_kinds(operation, "429") == names(
        problems.QuotaExceeded, problems.BurstLimitExceeded
    )
    assert operation["responses"]["429"]["headers"]["Retry-After"]["required"] is True
    for status in ("200", "304"):
        headers = operation["responses"][status]["headers"]
        assert {name for name, h in headers.items() if h.get("required")} >= {
            *RATELIMIT_HEADERS,
            "ETag",
            "Cache-Control",
        }
    # The burst 429 carries only Retry-After: the RateLimit headers are not required.
    assert not any(
        h.get("required")
        for name, h in operation["responses"]["429"]["headers"].items()
        if name in RATELIMIT_HEADERS
    )
    assert "If-None-Match" in {p["name"] for p in operation["parameters"] if p["in"] == "header"}
    assert "content" not in operation["responses"]["304"]


def test_unmetered_operations_carry_no_ratelimit_headers(openapi: dict[str, Any]) -> None:
    for path, method in [
        ("/v1/usage", "get"),
        ("/v1/usage/history", "get"),
        ("/v1/usage/outcomes", "get"),
        ("/v1/usage/requests", "get"),
        ("/v1/market", "get"),
        ("/v1/market", "put"),
    ]:
        for response in openapi["paths"][path][method]["responses"].values():
            assert not set(response.get("headers", {})) & set(RATELIMIT_HEADERS)


def test_foods_list_documents_search_filters_sorting_and_paging(openapi: dict[str, Any]) -> None:
    operation = openapi["paths"]["/v1/foods"]["get"]
    query = {p["name"]: p for p in operation["parameters"] if p["in"] == "query"}
    ranges = {f"{h.slug}_{bound}" for h in HEADLINES for bound in ("min", "max")}
    fixed = {"q", "data_type", "category", "brand", "market", "sort", "page", "page_size", "cursor",
             "variant_of", "ids", "fields", "nutrients"}  # fmt: skip
    assert set(query) == fixed | ranges
    assert query["q"]["schema"]["maxLength"] == 200
    assert query["page_size"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 100}
    assert "-protein" in query["sort"]["schema"]["enum"]
    assert (query["data_type"]["style"], query["data_type"]["explode"]) == ("form", False)
    assert problem_kinds(operation, "403") == names(
        problems.EnumerationForbidden, problems.ResultDepthExceeded, problems.MarketNotSelected
    )
    assert problem_kinds(operation, "400") == names(problems.InvalidParameter)
    envelope = openapi["components"]["schemas"]["FoodList"]
    assert envelope["required"] == ["data", "links", "meta"]
    assert envelope["properties"]["links"]["properties"]["next"]["nullable"] is True


def test_put_market_documents_its_body_and_its_errors(openapi: dict[str, Any]) -> None:
    operation = openapi["paths"]["/v1/market"]["put"]
    assert operation["requestBody"]["required"] is True
    schema = openapi["components"]["schemas"]["MarketRequest"]
    assert schema["required"] == ["market"]
    for status, cls in [
        ("400", problems.MalformedRequest),
        ("415", problems.UnsupportedMediaType),
        ("422", problems.ValidationFailed),
    ]:
        assert problem_kinds(operation, status) == names(cls)


def test_offered_markets_are_an_enum_of_what_is_offered_now(settings, db: None) -> None:
    """Issue 14.5: the schema is built per request, so it knows the offered markets."""

    def offered() -> list[str]:
        schema = APIClient().get("/openapi.json").json()["components"]["schemas"]["Market"]
        return schema["properties"]["data"]["properties"]["markets_offered"]["items"]["enum"]

    settings.DEFAULT_MARKETS = ["GB", "US"]  # an empty catalogue offers the defaults
    assert offered() == ["GB", "US"]
    FoodFactory(market=MarketFactory(code="CA"))
    catalogue_cache_forget()
    assert offered() == ["CA"]


def test_the_document_is_built_once_per_set_of_markets_and_tagged(
    monkeypatch: pytest.MonkeyPatch, db: None
) -> None:
    """Building the document costs ~35 ms of CPU on an anonymous, unmetered URL: each
    process builds it once for the markets offered, serves those bytes with an ETag, and
    builds it again when the markets change (or a setting: test_the_tier_table_...)."""
    built = []
    original = SchemaGenerator.get_schema

    def counted(self, *args: Any, **kwargs: Any) -> Any:
        built.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counted)
    client = APIClient()
    first = client.get("/openapi.json")
    again = client.get("/openapi.json")
    assert first.status_code == again.status_code == 200
    assert again.content == first.content and again["ETag"] == first["ETag"]
    assert first["Content-Type"] == "application/json"
    assert len(built) <= 1  # none when an earlier test of this process built it
    revalidated = client.get("/openapi.json", HTTP_IF_NONE_MATCH=first["ETag"])
    assert revalidated.status_code == 304 and revalidated.content == b""
    assert revalidated["ETag"] == first["ETag"]

    FoodFactory(market=MarketFactory(code="CA"))
    catalogue_cache_forget()
    changed = client.get("/openapi.json", HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    assert b'"CA"' in changed.content
    assert len(built) <= 2 and built  # the new markets' document was built


def test_usage_body_is_the_usage_record_of_the_spec(openapi: dict[str, Any]) -> None:
    record = openapi["components"]["schemas"]["Usage"]["properties"]["data"]
    assert record["required"] == [
        "tier",
        "quota_window",
        "request_quota",
        "request_count",
        "remaining",
        "period_end",
    ]
    assert "sous_chef" in record["properties"]["tier"]["enum"]


def test_the_tier_table_follows_the_settings(settings, db: None) -> None:
    settings.FOODSERVICE_TIERS = {
        **settings.FOODSERVICE_TIERS,
        "sous_chef": {"quota": 123_456, "window": "month", "rate": 7.0, "burst": 35},
    }
    intro = APIClient().get("/openapi.json").json()["info"]["description"]
    (row,) = [line for line in intro.splitlines() if "`sous_chef`" in line]
    assert "123,456" in row and "7 / s" in row and "| 35 |" in row
    assert "250,000" not in intro


def test_usage_history_documents_its_parameters(openapi: dict[str, Any]) -> None:
    operation = openapi["paths"]["/v1/usage/history"]["get"]
    query = {p["name"]: p for p in operation["parameters"] if p["in"] == "query"}
    assert set(query) == {"granularity", "period", "start", "end", "key"}
    assert set(query["period"]["schema"]["enum"]) == {"24h", "7d", "30d"}
    assert names(problems.InvalidParameter) <= problem_kinds(operation, "400")


def test_batches_and_projections_are_documented(openapi: dict[str, Any]) -> None:
    foods = openapi["paths"]["/v1/foods"]["get"]
    query = {p["name"]: p for p in foods["parameters"] if p["in"] == "query"}
    assert query["ids"]["schema"]["maxItems"] == 50
    assert "nutrients_per_100g.protein_g" in query["fields"]["description"]
    body = foods["responses"]["200"]["content"]["application/json"]["schema"]
    assert {"$ref": "#/components/schemas/FoodBatch"} in body["anyOf"]
    batch = openapi["components"]["schemas"]["FoodBatch"]
    assert "missing" in batch["properties"]["meta"]["properties"]
    record = openapi["paths"]["/v1/foods/{public_id}"]["get"]
    assert {"fields", "nutrients"} <= {p["name"] for p in record["parameters"]}
    assert "400" in record["responses"] and "400" in foods["responses"]


def test_a_language_asked_for_never_becomes_the_document_of_others(db: None) -> None:
    """?lang= is drf-spectacular's (USE_I18N): a known language gets a document of its
    own, an unknown one the default; neither is served to a request without it."""
    client = APIClient()
    plain = client.get("/openapi.json")
    for lang in ("de", "xx-nonsense"):
        asked = client.get("/openapi.json", {"lang": lang})
        assert asked.status_code == 200
        assert client.get("/openapi.json")["ETag"] == plain["ETag"]
    assert client.get("/openapi.json", {"lang": "xx-nonsense"})["ETag"] == plain["ETag"]
