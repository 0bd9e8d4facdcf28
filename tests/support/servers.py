"""Real server processes for tests that need more than one process (gunicorn)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def redis_clear() -> None:
    """Delete every Redis key of this test process (``settings.REDIS_KEY_PREFIX``), and
    no other: the xdist workers of a run, and other runs, share the Redis database."""
    from django_redis import get_redis_connection

    client = get_redis_connection("default")
    batch = list(client.scan_iter(match=f"{settings.REDIS_KEY_PREFIX}:*", count=1000))
    for start in range(0, len(batch), 500):
        client.delete(*batch[start : start + 500])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_database_url() -> str:
    """A DATABASE_URL for the database this test run is using (the test database)."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def server_env(**extra: str) -> dict[str, str]:
    """The environment a server process needs to share this test run's state.

    The server's usage flusher thread is off (``METER_FLUSH_SECONDS=0``) unless a test
    sets it: a server outlives the tests of its module, and a flush writing history in
    the background while a test's teardown truncates the tables deadlocks on PostgreSQL
    (its insert's foreign-key check against TRUNCATE's locks), failing that teardown.
    The tests of the flusher itself (tests/faults, tests/metering/test_server.py) set it.

    Servers run ``tests.support.server_settings`` (the project's settings with the test
    run's fast password hasher) unless a test names other settings: Argon2 at 100 MB
    per sign-in attempt made the lockout tests' servers a tenth of their pass's CPU.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        DATABASE_URL=test_database_url(),
        SECRET_KEY=settings.SECRET_KEY,
        KEY_PEPPER=settings.KEY_PEPPER,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DEBUG="0",
        SECURE_COOKIES="0",
        METER_FLUSH_SECONDS="0",
        DJANGO_SETTINGS_MODULE="tests.support.server_settings",
    )
    if settings.REDIS_URL:
        env["REDIS_URL"] = settings.REDIS_URL
        env["REDIS_KEY_PREFIX"] = settings.REDIS_KEY_PREFIX  # this worker's keys
    env.update(extra)
    return env


@contextmanager
def gunicorn(
    *, workers: int = 2, threads: int = 1, config: bool = False, port: int = 0, **env: str
) -> Iterator[str]:
    """Run gunicorn on a free port (or ``port``) with this run's database and Redis;
    yields the base URL once it answers, and stops it afterwards. ``config``: read
    ``gunicorn.conf.py`` as ``make serve-prod`` does (its workers, limits, timeouts), only
    the address, workers, threads and log level given on the command line."""
    port = port or free_port()
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        *(["--config", str(ROOT / "gunicorn.conf.py")] if config else []),
        "foodservice.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--log-level",
        "warning",
        *([] if config else ["--timeout", "30"]),
    ]
    process = subprocess.Popen(command, cwd=ROOT, env=server_env(**env))
    with _serving(f"http://127.0.0.1:{port}", process) as base:
        yield base


NGINX = "/usr/sbin/nginx"


@contextmanager
def nginx(upstream: str, *, base_url: str = "http://127.0.0.1:8000") -> Iterator[str]:
    """Run nginx from ``deploy/nginx.conf.template`` on a free port in front of
    ``upstream`` (a base URL such as ``gunicorn()`` yields); yields nginx's base URL once
    it answers, and stops it afterwards."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="fs-nginx-") as prefix:
        values = {
            "LISTEN": f"127.0.0.1:{port}",
            "UPSTREAM": upstream.removeprefix("http://"),
            "PREFIX": prefix,
            "BASE_URL": base_url,
        }
        text = (ROOT / "deploy" / "nginx.conf.template").read_text()
        conf = Path(prefix) / "nginx.conf"
        conf.write_text(re.sub(r"\$\{(\w+)\}", lambda m: values.get(m[1], m[0]), text))
        command = [NGINX, "-p", prefix, "-e", "stderr", "-c", str(conf), "-g", "daemon off;"]
        process = subprocess.Popen(command)
        with _serving(f"http://127.0.0.1:{port}", process) as base:
            yield base


@contextmanager
def _serving(base: str, process: subprocess.Popen) -> Iterator[str]:
    """Yields ``base`` once the server ``process`` answers there; stops it afterwards
    (SIGTERM, then SIGKILL after 15 s)."""
    try:
        _wait_until_up(base, process)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_up(base: str, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited with {process.returncode}")
        try:
            urllib.request.urlopen(f"{base}/v1/market", timeout=1)
        except urllib.error.HTTPError:
            return  # any HTTP answer (401 here) means it is serving
        except OSError:
            time.sleep(0.1)
            continue
        return
    raise RuntimeError(f"{process.args[0]} did not start in time")


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """GET ``url``; returns (status, headers, body) for any status."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()
