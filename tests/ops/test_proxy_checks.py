"""The proxy settings' system checks (foodservice/ops/checks.py, issue 36.4): a configuration
from before ``TRUSTED_PROXIES`` (a count alone) stops ``manage.py check`` and so
``make serve-prod``, instead of silently giving every client the proxy's address."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from foodservice.ops.checks import proxy_settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("count", "proxies", "ids"),
    [
        (0, [], []),  # the default: the header is ignored, nothing to say
        (1, ["127.0.0.1/32"], []),  # nginx on the same host
        (2, ["127.0.0.1/32", "10.0.0.0/8"], []),  # a balancer in 10/8, then nginx
        (1, [], ["foodservice.E001"]),  # the old configuration
        (-1, [], ["foodservice.E002"]),
        (1, ["nginx"], ["foodservice.E003"]),  # set in code, past the environment's parse
        (0, ["127.0.0.1/32"], ["foodservice.W001"]),  # trusted, but no hop to peel
        (2, ["127.0.0.1/32", "::1/128"], ["foodservice.W002"]),  # the balancer not named
    ],
)
def test_proxy_settings_check(settings, count, proxies, ids):
    settings.TRUSTED_PROXY_COUNT = count
    settings.TRUSTED_PROXIES = proxies
    assert [message.id for message in proxy_settings()] == ids


def manage_check(tmp_path: Path, **env: str) -> tuple[int, str]:
    """``manage.py check`` in a fresh process reading ``env``; (exit code, output)."""
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("TRUSTED_PROXIES", "TRUSTED_PROXY_COUNT", "DATABASE_URL", "REDIS_URL")
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={**base, "FOODSERVICE_VAR_DIR": str(tmp_path), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    return result.returncode, result.stdout + result.stderr


@pytest.mark.backend_free
@pytest.mark.server
def test_a_count_without_trusted_proxies_stops_manage_check(tmp_path):
    code, output = manage_check(tmp_path, TRUSTED_PROXY_COUNT="1")
    assert code != 0
    assert "(foodservice.E001)" in output and "TRUSTED_PROXIES" in output
    code, output = manage_check(tmp_path, TRUSTED_PROXY_COUNT="1", TRUSTED_PROXIES="127.0.0.1")
    assert code == 0, output
    assert not re.search(r"\(foodservice\.[EW]\d+\)", output)


@pytest.mark.backend_free
@pytest.mark.server
def test_trusted_proxies_that_are_no_addresses_stop_the_start(tmp_path):
    code, output = manage_check(tmp_path, TRUSTED_PROXY_COUNT="1", TRUSTED_PROXIES="*")
    assert code != 0
    assert "ImproperlyConfigured: TRUSTED_PROXIES: '*' would trust" in output
