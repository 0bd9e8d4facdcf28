"""Fixtures and helpers of the delivery tests: the worker memory turned on, another
worker's view of it, and the food queries a request made."""

from __future__ import annotations

import pytest
from django.test.utils import CaptureQueriesContext


@pytest.fixture
def memory_on(settings) -> None:
    """The worker memory on (the tests' default is off: they change the catalogue and
    read it back at once)."""
    settings.CATALOGUE_VERSION_SECONDS = 60


def food_queries(captured: CaptureQueriesContext) -> list[str]:
    """The queries of ``captured`` that read foods."""
    return [q["sql"] for q in captured if "catalogue_food" in q["sql"]]
