"""gunicorn.conf.py (issue 7.1): defaults, and real gunicorn serving with it."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from keys.services import key_create
from tests.factories import AccountFactory
from tests.support.servers import fetch, gunicorn

CONFIG = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"
TOKEN = "scrape-token-for-tests"


def load(monkeypatch, **env: str) -> dict:
    for name in (
        "WEB_CONCURRENCY",
        "REDIS_URL",
        "PORT",
        "GUNICORN_BIND",
        "GUNICORN_THREADS",
        "GUNICORN_CONTROL_SOCKET",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "/tmp/unused-by-this-test")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(CONFIG))


def test_workers_default_to_twice_the_cores_plus_one_with_redis(monkeypatch):
    config = load(monkeypatch, REDIS_URL="redis://127.0.0.1:6379/0")
    assert config["default_workers"](cores=2, redis=True) == 5
    assert config["workers"] >= 3
    assert config["threads"] == 4
    assert config["worker_class"] == "foodservice.http.gunicorn_workers.ThreadWorker"


def test_one_worker_without_redis_because_metering_is_in_process(monkeypatch):
    assert load(monkeypatch)["workers"] == 1


def test_environment_overrides_the_defaults(monkeypatch):
    config = load(monkeypatch, WEB_CONCURRENCY="7", GUNICORN_THREADS="2", PORT="9000")
    assert (config["workers"], config["threads"], config["bind"]) == (7, 2, ["127.0.0.1:9000"])


def test_gunicorn_listens_on_loopback_unless_an_address_is_named(monkeypatch):
    """Behind nginx on the same host (issue 36.4): PORT alone never opens gunicorn to
    other hosts, where a client would skip nginx; GUNICORN_BIND names any address."""
    assert load(monkeypatch)["bind"] == ["127.0.0.1:8000"]
    assert load(monkeypatch, PORT="8080")["bind"] == ["127.0.0.1:8080"]
    config = load(monkeypatch, PORT="8080", GUNICORN_BIND="0.0.0.0:8080, [::1]:8081")
    assert config["bind"] == ["0.0.0.0:8080", "[::1]:8081"]


def test_production_choices(monkeypatch):
    config = load(monkeypatch)
    assert config["preload_app"] is False
    assert config["accesslog"] is None
    assert config["control_socket_disable"] is True  # one path per user: instances clash
    assert config["wsgi_app"] == "foodservice.wsgi:application"
    assert config["timeout"] == 30 and config["graceful_timeout"] == 30
    assert 0 < config["max_requests_jitter"] < config["max_requests"]
    assert callable(config["child_exit"]) and callable(config["on_starting"])


def counter(exposition: str, name: str, **labels: str) -> float:
    """Sum of the samples of ``name`` whose labels include ``labels``."""
    total = 0.0
    for line in exposition.splitlines():
        match = re.match(rf"{name}\{{(.*)\}} (\S+)$", line)
        if match and all(f'{k}="{v}"' in match.group(1) for k, v in labels.items()):
            total += float(match.group(2))
    return total


@pytest.mark.server
@pytest.mark.django_db(transaction=True)
def test_real_gunicorn_serves_health_request_ids_and_metrics_summed_over_workers():
    _, secret = key_create(account=AccountFactory(market="US"), label="metrics")
    with gunicorn(workers=2, threads=2, METRICS_TOKEN=TOKEN) as base:
        assert fetch(f"{base}/healthz")[0] == 200
        status, headers, _ = fetch(f"{base}/readyz")
        assert status == 200
        assert re.fullmatch(r"[0-9a-f]{32}", headers["X-Request-ID"])
        for _ in range(20):
            assert fetch(f"{base}/v1/market", {"X-API-Key": secret})[0] == 200
        assert fetch(f"{base}/metrics")[0] == 401
        scrapes = {
            fetch(f"{base}/metrics", {"Authorization": f"Bearer {TOKEN}"})[2].decode()
            for _ in range(6)
        }
    # Whichever worker answered the scrape, it reports every worker's requests.
    for exposition in scrapes:
        assert (
            counter(
                exposition,
                "foodservice_requests_total",
                endpoint="v1:market",
                status="200",
                tier="taster",
            )
            == 20
        )
