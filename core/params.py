"""Query parameters that take a list: ``name=a,b`` (OpenAPI's form style without
explode, as the schema describes them) and ``name=a&name=b`` (what clients that explode
every array send: openapi-python-client, requests and httpx given a list) name the same
list. Every other parameter is given at most once."""

from __future__ import annotations

from collections.abc import Sequence


def list_items(given: Sequence[str]) -> list[str]:
    """The stripped, non-blank items of every value of a list parameter, in order."""
    return [item.strip() for value in given for item in value.split(",") if item.strip()]
