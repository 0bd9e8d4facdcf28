"""Fixtures of the key tests."""

from __future__ import annotations

import pytest

from tests.support.servers import free_port


@pytest.fixture
def key_cache_down(settings) -> None:
    settings.CACHES = {
        **settings.CACHES,
        "keys": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2},
        },
    }
