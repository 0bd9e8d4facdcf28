"""Hostile request bodies (issue 7.7): the JSON parser and PUT /v1/market answer a clear
4xx problem, never a 500, for bytes that are not JSON, JSON of the wrong shape, very
deep or very large JSON, and any content type."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.exceptions import ParseError

from foodservice.http.parsers import JSONParser
from tests.hostile.profile import hostile

PROBLEM = "application/problem+json"
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)
# Shapes a client might send for the market: right key, any value; other keys; no object.
market_bodies = st.one_of(
    st.fixed_dictionaries({"market": json_values}),
    st.dictionaries(st.text(max_size=12), json_values, max_size=4),
    json_values,
)


def deep(depth: int, *, kind: str = "list") -> str:
    opener, closer = ("[", "]") if kind == "list" else ('{"a":', "}")
    return opener * depth + "1" + closer * depth


def parse(raw: bytes):
    return JSONParser().parse(io.BytesIO(raw), "application/json", {"encoding": "utf-8"})


@hostile
@given(raw=st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()))
def test_the_parser_returns_json_or_raises_a_parse_error(raw):
    try:
        value = parse(raw)
    except ParseError:
        return
    assert value == json.loads(raw.decode("utf-8"))  # what it accepts, it reads right


@pytest.mark.parametrize(
    "raw",
    [
        deep(100_000).encode(),
        deep(100_000, kind="dict").encode(),
        b"[" * 20_000,
        b"NaN",
        b'{"market": Infinity}',
        b"\xff\xfe\x00",
        b'{"market": "US"' + b" " * (16 * 1024),
    ],
)
def test_the_parser_refuses_deep_big_and_non_json_bodies(raw):
    with pytest.raises(ParseError):
        parse(raw)


def assert_clear_4xx(response, *allowed: int) -> None:
    assert response.status_code in allowed, response.content[:200]
    if response.status_code >= 400:
        assert response["Content-Type"] == PROBLEM
        body = response.json()
        assert body["status"] == response.status_code
        assert body["type"].startswith("/problems/")


@hostile
@given(body=market_bodies)
def test_put_market_answers_any_json_with_a_clear_4xx_or_success(body, api_client, key_and_secret):
    _, secret = key_and_secret
    response = api_client.put(
        "/v1/market", json.dumps(body), content_type="application/json", HTTP_X_API_KEY=secret
    )
    assert_clear_4xx(response, 200, 400, 422)


@hostile
@given(
    raw=st.binary(max_size=300),
    content_type=st.sampled_from(
        [
            "application/json",
            "application/json; charset=latin-1",
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "",
        ]
    ),
)
def test_put_market_answers_any_bytes_with_a_clear_4xx_or_success(
    raw, content_type, api_client, key_and_secret
):
    _, secret = key_and_secret
    response = api_client.generic(
        "PUT", "/v1/market", raw, content_type=content_type, HTTP_X_API_KEY=secret
    )
    assert_clear_4xx(response, 200, 400, 415, 422)


@pytest.mark.parametrize(
    ("raw", "status", "kind"),
    [
        (deep(100_000), 400, "malformed-request"),
        (deep(50_000, kind="dict"), 400, "malformed-request"),
        ('{"market": "US"' + " " * (16 * 1024) + "}", 400, "malformed-request"),
        ("not json", 400, "malformed-request"),
        ('["US"]', 400, "malformed-request"),
        ('"US"', 400, "malformed-request"),
        ("{}", 422, "validation-failed"),
        ('{"market": 5}', 422, "validation-failed"),
        ('{"market": null}', 422, "validation-failed"),
        ('{"market": ["US"]}', 422, "validation-failed"),
        ('{"market": "' + "X" * 10_000 + '"}', 422, "validation-failed"),
        ('{"market": "U\\u0000S"}', 422, "validation-failed"),
    ],
)
def test_put_market_names_the_problem(raw, status, kind, api_client, key_and_secret):
    _, secret = key_and_secret
    response = api_client.put(
        "/v1/market", raw, content_type="application/json", HTTP_X_API_KEY=secret
    )
    assert_clear_4xx(response, status)
    assert response.json()["type"] == f"/problems/{kind}"
