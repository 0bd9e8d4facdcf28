"""Fixtures of the audit tests: the dashboard's accounts, and two markets on offer."""

from __future__ import annotations

import pytest

from tests.dashboard.conftest import other_account, verified  # noqa: F401  (shared fixtures)


@pytest.fixture(autouse=True)
def _two_markets(settings) -> None:  # pytest-django's settings fixture
    settings.DEFAULT_MARKETS = ["GB", "US"]
