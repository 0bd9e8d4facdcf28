"""/healthz and /readyz (issue 7.2): unauthenticated, unmetered, cheap, JSON."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder

from foodservice.ops import health
from tests.support.servers import fetch, gunicorn


@pytest.fixture(autouse=True)
def _cold_migration_answer():
    health._migrations_applied.clear()
    yield
    health._migrations_applied.clear()


def redis_expected() -> str:
    return "ok" if settings.REDIS_URL else "not-configured"


def test_healthz_answers_without_any_io(db, client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_health_endpoints_need_no_key_and_ignore_a_bad_one(db, client):
    for path in ("/healthz", "/readyz"):
        assert client.get(path, HTTP_X_API_KEY="svc_sk_live_garbage").status_code == 200


def test_health_endpoints_are_not_metered(db, client):
    response = client.get("/readyz")
    assert not any(name.lower().startswith("ratelimit") for name in response.headers)


def test_readyz_is_ready_when_database_redis_and_migrations_are(db, client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ready",
        "checks": {"database": "ok", "redis": redis_expected(), "migrations": "ok"},
    }


def test_readyz_reads_the_migrations_once_then_only_pings(db, client, django_assert_num_queries):
    client.get("/readyz")  # cold: reads the applied migrations
    with django_assert_num_queries(1):  # warm: SELECT 1 only
        assert client.get("/readyz").status_code == 200


def test_readyz_answers_503_naming_an_unapplied_migration(db, client):
    latest = MigrationRecorder.Migration.objects.filter(app="keys").order_by("-id").first()
    latest.delete()  # as if the newest keys migration were not applied yet
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json() == {
        "status": "unavailable",
        "checks": {"database": "ok", "redis": redis_expected(), "migrations": "pending"},
    }


def test_readyz_methods_other_than_get_and_head_are_refused(db, client):
    assert client.post("/readyz").status_code == 405
    assert client.head("/readyz").status_code == 200


def test_timed_answer_is_kept_for_its_ttl_then_recomputed():
    answers = iter([True, False])
    kept = health.TimedAnswer(ttl=30)
    assert kept.get(lambda: next(answers), now=100.0) is True
    assert kept.get(lambda: next(answers), now=129.9) is True  # kept
    assert kept.get(lambda: next(answers), now=130.0) is False  # recomputed


def test_database_ok_is_true_on_a_live_connection(db):
    assert health.database_ok() is True
    assert connection.is_usable()


@pytest.mark.server
@pytest.mark.django_db(transaction=True)
def test_readyz_names_the_parts_that_are_down_while_healthz_stays_up():
    down = {
        "DATABASE_URL": "postgres://postgres@127.0.0.1:1/nowhere?connect_timeout=1",
        "REDIS_URL": "redis://127.0.0.1:1/0",
    }
    with gunicorn(workers=1, **down) as base:
        status, headers, body = fetch(f"{base}/readyz")
        assert status == 503
        assert headers["Content-Type"] == "application/json"
        assert b'"database": "down"' in body
        assert b'"redis": "down"' in body
        assert b'"migrations": "unknown"' in body
        assert fetch(f"{base}/healthz")[0] == 200


def test_probes_and_scrapes_are_not_redirected_to_https(db, client, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.METRICS_TOKEN = "t"
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 200
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer t").status_code == 200
    assert client.get("/v1/market").status_code == 301
