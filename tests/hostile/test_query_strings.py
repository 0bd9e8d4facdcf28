"""Hostile query strings (issue 7.7): any parameters on the API's read endpoints get a
success or a clear 4xx problem, never a 500."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accounts.services import account_set_tier
from keys.services import key_create
from tests.factories import AccountFactory
from tests.hostile.profile import hostile

text = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
names = st.one_of(
    st.sampled_from(
        [
            "q",
            "page",
            "page_size",
            "limit",
            "offset",
            "sort",
            "order",
            "market",
            "category",
            "cursor",
            "fields",
            "q[]",
            "page[size]",
        ]
    ),
    text,
)
values = st.one_of(
    text,
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["", "0", "-1", "1e309", "NaN", "null", "[]", "%00", "\x00", "9" * 400]),
)
queries = st.lists(st.tuples(names, values), max_size=6).map(urlencode)


@pytest.fixture
def unthrottled_secret(db) -> str:
    """A Head Chef key: unthrottled, so every example reaches the view, not a 429."""
    account = AccountFactory(market="US")
    account_set_tier(account=account, tier="head_chef")
    return key_create(account=account, label="hostile")[1]


@hostile
@given(
    query=queries,
    path=st.sampled_from(["/v1/foods", "/v1/suggest", "/v1/market", "/v1/usage"]),
)
def test_any_query_string_gets_success_or_a_clear_4xx(query, path, api_client, unthrottled_secret):
    response = api_client.get(f"{path}?{query}", HTTP_X_API_KEY=unthrottled_secret)
    assert response.status_code < 500, (path, query, response.content[:300])
    if response.status_code >= 400:
        assert response["Content-Type"] == "application/problem+json"
        assert response.json()["status"] == response.status_code
