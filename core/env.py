"""Small typed readers for settings that come from the environment.

Each reader returns the default when the variable is unset or empty, and raises
``ImproperlyConfigured`` with the variable's name when it is set but malformed,
so a typo in production fails at start-up instead of on the first request.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def env_str(name: str, default: str = "") -> str:
    """The variable's value, or ``default`` when unset or empty."""
    return os.environ.get(name, "").strip() or default


def env_bool(name: str, default: bool = False) -> bool:
    """``1/true/yes/on`` or ``0/false/no/off`` (any case); anything else is an error."""
    raw = env_str(name).lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list, blanks dropped."""
    raw = env_str(name)
    if not raw:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_choice(name: str, choices: tuple[str, ...], default: str) -> str:
    """One of ``choices``; anything else is an error."""
    value = env_str(name, default)
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def local_base_url(host: str, port: str) -> str:
    """The URL a person on this machine opens for a server bound to ``host``:``port``
    (``make run``'s ``HOST`` and ``PORT``; defaults 127.0.0.1 and 8000). A wildcard bind
    (``0.0.0.0``, ``::``) is reached at 127.0.0.1; an IPv6 address gets brackets."""
    host = host.strip().strip("[]") or "127.0.0.1"
    if host in ("0.0.0.0", "::"):  # noqa: S104 - the wildcards themselves, not binds
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port.strip() or '8000'}"


def database_from_url(url: str, *, sqlite_path: Path) -> dict[str, object]:
    """A ``DATABASES['default']`` entry for ``url``; SQLite at ``sqlite_path`` when empty.

    Accepts ``postgres://`` / ``postgresql://`` (user, password, host, port, name and
    query options such as ``sslmode``) and ``sqlite:///path``.
    """
    if not url:
        return _sqlite(sqlite_path)
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        return _sqlite(Path(unquote(parts.path)) if parts.path not in ("", "/") else sqlite_path)
    if parts.scheme not in ("postgres", "postgresql"):
        raise ImproperlyConfigured(f"DATABASE_URL scheme {parts.scheme!r} is not supported")
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured("DATABASE_URL names no database")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": dict(parse_qsl(parts.query)),
    }


def _sqlite(path: Path) -> dict[str, object]:
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": path,
        # IMMEDIATE: a transaction takes the write lock when it begins, so two
        # concurrent "count keys, then insert" transactions serialise (spec 2.1: max 5).
        "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
    }
