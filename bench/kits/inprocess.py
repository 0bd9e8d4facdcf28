"""Django set up in this process against a given database and Redis, and a test client
metered with a fresh Head Chef key: what bench/scripts/reads_profile.py and
search_miss.py measure requests through (the whole middleware stack, DRF,
authentication, the meter)."""

from __future__ import annotations

import os
import time
from typing import Any


def metered_client(database_url: str, redis_url: str, label: str) -> Any:
    """``django.setup()`` for ``database_url`` and ``redis_url`` (request logging at
    WARNING), then a ``django.test.Client`` sending a new Head Chef key of a new
    account (written to the database: use a copy of the catalogue)."""
    os.environ.update(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        DJANGO_SETTINGS_MODULE="foodservice.settings",
        ALLOWED_HOSTS="testserver",
        DEBUG="0",
        LOG_LEVEL="WARNING",
        SECRET_KEY="profile-secret-key-not-for-production-0123456789abcdef",  # noqa: S106
    )
    import django

    django.setup()
    from django.test import Client

    from accounts.services import account_create, account_set_tier
    from keys.services import key_create

    email = f"{label}-{time.time_ns()}@example.com"
    account = account_set_tier(account=account_create(email=email), tier="head_chef")
    _, secret = key_create(account=account, label=label)
    return Client(HTTP_X_API_KEY=secret)
