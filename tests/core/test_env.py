"""core/env.py: settings read from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from core.env import database_from_url, env_bool, env_choice, env_list

SQLITE = Path("/tmp/x.sqlite3")


def test_no_database_url_means_sqlite():
    db = database_from_url("", sqlite_path=SQLITE)
    assert db["ENGINE"].endswith("sqlite3") and db["NAME"] == SQLITE


def test_postgres_url_is_parsed_with_options():
    db = database_from_url(
        "postgres://app:p%40ss@db.internal:6432/food?sslmode=require", sqlite_path=SQLITE
    )
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["USER"], db["PASSWORD"], db["HOST"], db["PORT"], db["NAME"]) == (
        "app",
        "p@ss",
        "db.internal",
        "6432",
        "food",
    )
    assert db["OPTIONS"] == {"sslmode": "require"}


@pytest.mark.parametrize("url", ["mysql://x/y", "postgres://host"])
def test_unsupported_or_incomplete_database_urls_fail_at_start(url):
    with pytest.raises(ImproperlyConfigured):
        database_from_url(url, sqlite_path=SQLITE)


def test_booleans_lists_and_choices(monkeypatch):
    monkeypatch.setenv("FS_FLAG", "Yes")
    monkeypatch.setenv("FS_LIST", " a, ,b ")
    monkeypatch.setenv("FS_CHOICE", "open")
    assert env_bool("FS_FLAG") is True
    assert env_list("FS_LIST", []) == ["a", "b"]
    assert env_choice("FS_CHOICE", ("open", "closed"), "closed") == "open"
    monkeypatch.setenv("FS_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FS_FLAG"):
        env_bool("FS_FLAG")
    monkeypatch.setenv("FS_CHOICE", "ajar")
    with pytest.raises(ImproperlyConfigured, match="FS_CHOICE"):
        env_choice("FS_CHOICE", ("open", "closed"), "closed")
