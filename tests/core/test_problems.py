"""Every error under /v1 is an application/problem+json object (spec 2.5, 7)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from core import problems
from tests.core.urls import LEAK

pytestmark = pytest.mark.django_db


def assert_problem(response, status: int, kind: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["type"] == f"/problems/{kind}"
    assert body["status"] == status
    assert body["title"] and body["detail"]
    assert body["doc_url"] == f"http://testserver.example/docs#tag/{kind}"
    return body


@pytest.fixture(autouse=True)
def _base_url(settings):
    settings.BASE_URL = "http://testserver.example"


def key(secret: str) -> dict[str, str]:
    return {"X-API-Key": secret}


@pytest.mark.parametrize("debug", [False, True])
def test_unknown_v1_path_is_a_404_problem_with_or_without_key(
    api_client, key_and_secret, settings, debug
):
    settings.DEBUG = debug
    assert_problem(api_client.get("/v1/nope"), 404, "not-found")
    assert_problem(api_client.get("/v1/nope", headers=key(key_and_secret[1])), 404, "not-found")
    assert_problem(api_client.get("/v1"), 404, "not-found")


@pytest.mark.parametrize("path", ["/v1/market", "/v1/usage", "/v1/foods"])
def test_options_is_a_405_problem_that_describes_nothing(api_client, key_and_secret, path):
    response = api_client.options(path, headers=key(key_and_secret[1]))
    body = assert_problem(response, 405, "method-not-allowed")
    assert set(body) == {"type", "title", "status", "detail", "doc_url"}


def test_wrong_method_is_a_405_problem_with_allow(api_client, key_and_secret):
    response = api_client.post("/v1/market", {}, format="json", headers=key(key_and_secret[1]))
    assert_problem(response, 405, "method-not-allowed")
    assert set(response["Allow"].replace(" ", "").split(",")) >= {"GET", "PUT"}


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b'{"market": NaN}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"market": "' + b"x" * 20_000 + b'"}',
    ],
    ids=["garbage", "nan", "very-deep", "too-big"],
)
def test_unreadable_bodies_are_a_400_problem(api_client, key_and_secret, body):
    response = api_client.put(
        "/v1/market", body, content_type="application/json", headers=key(key_and_secret[1])
    )
    assert_problem(response, 400, "malformed-request")


def test_non_json_body_is_a_415_problem(api_client, key_and_secret):
    response = api_client.put(
        "/v1/market",
        "market=US",
        content_type="application/x-www-form-urlencoded",
        headers=key(key_and_secret[1]),
    )
    assert_problem(response, 415, "unsupported-media-type")


@pytest.mark.urls("tests.core.urls")
@pytest.mark.parametrize("path", ["/v1/explode", "/v1/explode-plain"])
@pytest.mark.parametrize("debug", [False, True])
def test_unexpected_errors_are_a_bare_500_problem(settings, path, debug, caplog):
    settings.DEBUG = debug
    response = Client(raise_request_exception=False).get(path)
    body = assert_problem(response, 500, "internal-error")
    assert LEAK not in response.content.decode()
    assert "Traceback" not in response.content.decode()
    assert body["detail"] == problems.InternalError.default_detail
    assert LEAK in caplog.text  # the operator still sees it in the log


@pytest.mark.urls("tests.core.urls")
def test_redis_unreachable_in_any_view_is_a_503_problem():
    response = Client(raise_request_exception=False).get("/v1/redis-down")
    assert_problem(response, 503, "service-unavailable")
    assert response["Retry-After"] == "5"


def test_bad_host_header_is_a_400_problem():
    response = Client(raise_request_exception=False).get("/v1/market", HTTP_HOST="evil.example")
    assert_problem(response, 400, "malformed-request")


def test_pages_outside_v1_keep_djangos_html_errors():
    response = Client().get("/no-such-page")
    assert response.status_code == 404
    assert "problem+json" not in response["Content-Type"]


def test_every_problem_kind_renders_a_complete_object(settings):
    kinds = [cls.kind for cls in problems.all_problem_types()]
    assert len(kinds) == len(set(kinds))
    assert {
        "unauthorized",
        "enumeration-forbidden",
        "result-depth-exceeded",
        "market-not-selected",
        "quota-exceeded",
        "burst-limit-exceeded",
    } <= set(kinds)
    for cls in problems.all_problem_types():
        if cls in (problems.InvalidParameter,):
            problem = cls("page", "must be a positive integer")
        elif cls is problems.ValidationFailed:
            problem = cls({"market": "required"})
        elif issubclass(cls, problems.QuotaExceeded | problems.BurstLimitExceeded):
            problem = cls(limit=10, window=1, retry_after=2)
        else:
            problem = cls()
        body = json.loads(json.dumps(problem.body()))
        assert set(body) >= {"type", "title", "status", "detail", "doc_url"}
        assert body["doc_url"].endswith(f"/docs#tag/{cls.kind}")
        assert 400 <= body["status"] <= 599


def test_429_problems_carry_their_members_and_retry_after():
    problem = problems.QuotaExceeded(limit=250, window=86400, retry_after=3600)
    body = problem.body()
    assert (body["limit"], body["window"], body["retry_after"]) == (250, 86400, 3600)
    assert problem.headers()["Retry-After"] == "3600"
    assert problems.QuotaExceeded.type_uri() != problems.BurstLimitExceeded.type_uri()
