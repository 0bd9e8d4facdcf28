"""Issue 18: the service against real engines the tests start themselves (Redis Cluster,
Redis Sentinel, PgBouncer, a PostgreSQL streaming replica; ``engines.py``).

These tests run in the PostgreSQL + Redis pass only (on the embedded pass there is no
PostgreSQL to put PgBouncer or a replica in front of, and running the Redis engines
twice would only cost CI time), and carry the ``engines`` marker: ``-m "not engines"``
leaves them out locally; CI runs them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings

from metering.backends import meter_reset
from tests.support.scale_out import ThrowawayRedisCluster

SERVICES_PASS = bool(settings.REDIS_URL) and settings.DATABASES["default"]["ENGINE"].endswith(
    "postgresql"
)
collect_ignore_glob = [] if SERVICES_PASS else ["test_*.py"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/engines/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.engines)


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[ThrowawayRedisCluster]:
    cluster = ThrowawayRedisCluster()
    cluster.start()
    yield cluster
    cluster.stop()


def redis_settings(url: str, **topology: object) -> dict[str, object]:
    """Settings that point this process's caches and meter at ``url`` and a topology."""
    caches = {alias: {**config, "LOCATION": url} for alias, config in settings.CACHES.items()}
    return {"REDIS_URL": url, "CACHES": caches, **topology}


@pytest.fixture
def on_cluster(redis_cluster: ThrowawayRedisCluster, settings) -> Iterator[ThrowawayRedisCluster]:
    """This process's caches and meter on the (emptied) throwaway cluster."""
    redis_cluster.flush()
    for name, value in redis_settings(redis_cluster.url, REDIS_CLUSTER=True).items():
        setattr(settings, name, value)
    meter_reset()
    yield redis_cluster
    meter_reset()
