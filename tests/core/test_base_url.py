"""BASE_URL follows the HOST and PORT the server runs on when it is unset (issue 14.8):
``make run PORT=8031`` links every ``doc_url`` and the /docs examples to port 8031."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.env import local_base_url

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        ("", "", "http://127.0.0.1:8000"),
        ("127.0.0.1", "8031", "http://127.0.0.1:8031"),
        ("0.0.0.0", "8031", "http://127.0.0.1:8031"),  # noqa: S104
        ("::", "9000", "http://127.0.0.1:9000"),
        ("localhost", "", "http://localhost:8000"),
        ("::1", "8031", "http://[::1]:8031"),
        ("[::1]", "8031", "http://[::1]:8031"),
    ],
)
def test_local_base_url(host, port, url):
    assert local_base_url(host, port) == url


SERVED = """
import django
django.setup()
from django.test import Client
client = Client()
print(client.get("/v1/foods").json()["doc_url"])
schema = client.get("/openapi.json").json()
print(schema["servers"][0]["url"])
print(schema["info"]["description"].count(":8031/"), schema["info"]["description"].count(":8000"))
"""


def served(tmp_path: Path, **env: str) -> list[str]:
    """What a fresh process with ``env`` serves: a doc_url, the schema's server, and how
    many /docs examples name port 8031 and port 8000."""
    clean = {k: v for k, v in os.environ.items() if k not in ("BASE_URL", "HOST", "PORT")}
    clean.pop("DATABASE_URL", None)
    clean.pop("REDIS_URL", None)
    clean.update(DJANGO_SETTINGS_MODULE="foodservice.settings", FOODSERVICE_VAR_DIR=str(tmp_path))
    clean.update(env)
    result = subprocess.run(
        [sys.executable, "-c", SERVED], cwd=ROOT, env=clean, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split("\n")


@pytest.mark.backend_free
def test_unset_base_url_follows_host_and_port(tmp_path):
    # An unmigrated database: the reference is still served (no markets enum then).
    lines = served(tmp_path, HOST="127.0.0.1", PORT="8031")
    assert lines[0] == "http://127.0.0.1:8031/docs#tag/unauthorized"
    assert lines[1] == "http://127.0.0.1:8031"
    on_8031, on_8000 = map(int, lines[2].split())
    assert on_8031 >= 4 and on_8000 == 0


@pytest.mark.backend_free
def test_a_set_base_url_wins(tmp_path):
    lines = served(tmp_path, HOST="127.0.0.1", PORT="8031", BASE_URL="https://api.example.com/")
    assert lines[0] == "https://api.example.com/docs#tag/unauthorized"
    assert lines[1] == "https://api.example.com"


FAKE_PYTHON = """#!/bin/sh
echo "$HOST $PORT $*" >> "$(dirname "$0")/calls"
"""


@pytest.mark.backend_free
def test_make_run_hands_host_and_port_to_every_step(tmp_path):
    """``make run PORT=8031`` with a stand-in interpreter that records its environment
    (a venv marked installed, so nothing is installed)."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    (venv / ".installed").touch()
    newer = (ROOT / "pyproject.toml").stat().st_mtime + 1
    os.utime(venv / ".installed", (newer, newer))  # so make installs nothing
    env = {k: v for k, v in os.environ.items() if k not in ("BASE_URL", "HOST", "PORT")}
    result = subprocess.run(
        ["make", "-s", "run", f"VENV={venv}", "PORT=8031"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    calls = (venv / "bin" / "calls").read_text().splitlines()
    assert len(calls) >= 5 and all(call.startswith("127.0.0.1 8031 ") for call in calls)
    assert calls[-1].endswith("runserver --noreload 127.0.0.1:8031")
    assert any("setup_demo --host 127.0.0.1 --port 8031" in call for call in calls)
