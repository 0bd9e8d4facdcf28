"""Metering fixtures. ``meter`` is every backend this pass can run: the in-process
meter always, and the Redis meter too when the pass has Redis (``REDIS_URL`` set: the
PostgreSQL + Redis pass). Nothing is skipped: each pass runs what its backends are."""

from __future__ import annotations

import pytest
from django.conf import settings

from metering.backends import RedisMeter, redis_client
from metering.inprocess import MemoryMeter
from metering.meter import Meter

BACKENDS = ["memory", "redis"] if settings.REDIS_URL else ["memory"]


@pytest.fixture(params=BACKENDS)
def meter(request: pytest.FixtureRequest) -> Meter:
    if request.param == "redis":
        return RedisMeter(redis_client(settings.REDIS_URL))
    return MemoryMeter()
