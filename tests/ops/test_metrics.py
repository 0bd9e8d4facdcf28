"""Prometheus metrics (issue 7.3): what is counted, and who may read /metrics."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from core import metrics

TOKEN = "scrape-token-for-tests"


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def metrics_on(settings):
    settings.METRICS_TOKEN = TOKEN


def test_metrics_are_off_without_a_token(db, client, settings):
    settings.METRICS_TOKEN = ""
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 404
    assert b"foodservice_" not in response.content


@pytest.mark.parametrize(
    "header",
    [None, "Bearer wrong-token", f"Basic {TOKEN}", f"Bearer {TOKEN}x", "Bearer"],
)
def test_metrics_refuse_a_missing_or_wrong_token(db, client, metrics_on, header):
    headers = {"HTTP_AUTHORIZATION": header} if header else {}
    response = client.get("/metrics", **headers)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert b"foodservice_" not in response.content


def test_metrics_answer_the_bearer_token_with_the_exposition(db, client, metrics_on):
    client.get("/healthz")
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    body = response.content.decode()
    for name in (
        "foodservice_requests_total",
        "foodservice_request_duration_seconds_bucket",
        "foodservice_unauthorized_total",
    ):
        assert name in body


def test_requests_are_counted_by_route_name_status_and_tier(api_client, key_and_secret):
    _, secret = key_and_secret
    labels = {"endpoint": "v1:market", "method": "GET", "status": "200", "tier": "taster"}
    before = sample("foodservice_requests_total", **labels)
    latency_before = sample("foodservice_request_duration_seconds_count", endpoint="v1:market")
    for _ in range(3):
        assert api_client.get("/v1/market", HTTP_X_API_KEY=secret).status_code == 200
    assert sample("foodservice_requests_total", **labels) == before + 3
    assert (
        sample("foodservice_request_duration_seconds_count", endpoint="v1:market")
        == latency_before + 3
    )


def test_unknown_paths_never_become_labels(db, api_client):
    api_client.get("/v1/no-such-thing-12345")
    api_client.get("/no-such-page-12345/")
    assert "no-such" not in metrics.exposition().decode()


def test_401s_are_counted_with_tier_none(db, api_client):
    before = sample("foodservice_unauthorized_total")
    labelled = sample(
        "foodservice_requests_total", endpoint="v1:market", method="GET", status="401", tier="none"
    )
    api_client.get("/v1/market")
    api_client.get("/v1/market", HTTP_X_API_KEY="svc_sk_live_nope")
    assert sample("foodservice_unauthorized_total") == before + 2
    assert (
        sample(
            "foodservice_requests_total",
            endpoint="v1:market",
            method="GET",
            status="401",
            tier="none",
        )
        == labelled + 2
    )


@pytest.mark.urls("tests.ops.urls")
def test_429s_are_counted_by_kind(db, api_client):
    quota = sample("foodservice_throttled_total", kind="quota-exceeded")
    burst = sample("foodservice_throttled_total", kind="burst-limit-exceeded")
    assert api_client.get("/v1/test-quota").status_code == 429
    assert api_client.get("/v1/test-burst").status_code == 429
    assert api_client.get("/v1/test-burst").status_code == 429
    assert sample("foodservice_throttled_total", kind="quota-exceeded") == quota + 1
    assert sample("foodservice_throttled_total", kind="burst-limit-exceeded") == burst + 2


def test_meter_timer_records_the_time_even_when_the_meter_fails():
    before = sample("foodservice_meter_duration_seconds_count", backend="redis")
    with metrics.meter_timer(backend="redis"):
        pass
    with pytest.raises(ConnectionError), metrics.meter_timer(backend="redis"):
        raise ConnectionError("redis down")
    assert sample("foodservice_meter_duration_seconds_count", backend="redis") == before + 2


def test_redis_errors_are_counted_by_component():
    before = sample("foodservice_redis_errors_total", component="meter")
    metrics.redis_error(component="meter")
    assert sample("foodservice_redis_errors_total", component="meter") == before + 1


@pytest.mark.parametrize(
    ("header", "allowed"),
    [
        ("Bearer s3cret", True),
        ("bearer s3cret", True),
        ("  Bearer   s3cret  ", True),
        ("Bearer s3cre", False),
        ("Token s3cret", False),
        ("s3cret", False),
        ("", False),
    ],
)
def test_token_allows_only_the_exact_bearer_token(header, allowed):
    assert metrics.token_allows(header, "s3cret") is allowed


def test_no_token_configured_allows_nothing():
    assert metrics.token_allows("Bearer ", "") is False


def test_the_meters_burst_429s_are_counted(api_client, key_and_secret, clock):
    _, secret = key_and_secret
    before = sample("foodservice_throttled_total", kind="burst-limit-exceeded")
    statuses = [
        api_client.get("/v1/foods", {"q": "butter"}, HTTP_X_API_KEY=secret).status_code
        for _ in range(12)  # Taster: a burst of 10 at once (spec 8.3), the clock stopped
    ]
    assert statuses.count(429) == 2
    assert sample("foodservice_throttled_total", kind="burst-limit-exceeded") == before + 2
