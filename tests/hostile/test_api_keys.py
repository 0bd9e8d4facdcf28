"""Hostile key headers through the API (issue 7.7): every answer is the one opaque 401
problem, and no malformed key costs a database query."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from keys import secrets
from tests.hostile.profile import hostile, huge_text

PROBLEM = "application/problem+json"
# Keys that look almost right: the prefix, the right length, a wrong checksum; a real
# key with one character changed, dropped or added; arbitrary text, control
# characters and non-ASCII included.
alnum = st.sampled_from(secrets.ALPHABET)
near_shape = st.text(alnum, min_size=49, max_size=49).map(lambda body: secrets.PREFIX + body)


@st.composite
def mutated_key(draw) -> str:
    key = draw(st.builds(secrets.generate))
    at = draw(st.integers(0, len(key) - 1))
    change = draw(st.sampled_from(["replace", "drop", "add"]))
    char = draw(st.characters(exclude_categories=("Cs",)).filter(lambda c: c != key[at]))
    if change == "replace":
        return key[:at] + char + key[at + 1 :]
    if change == "drop":
        return key[:at] + key[at + 1 :]
    return key[:at] + char + key[at:]


malformed = st.one_of(
    near_shape.filter(lambda k: not secrets.is_well_formed(k)),
    mutated_key().filter(lambda k: not secrets.is_well_formed(k.strip())),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=200),
    st.text(st.characters(codec="latin-1", categories=("Cc",)), min_size=1, max_size=80),
    huge_text,
)


def assert_unauthorized(response) -> None:
    assert response.status_code == 401
    assert response["Content-Type"] == PROBLEM
    assert response.json()["type"] == "/problems/unauthorized"
    assert response["WWW-Authenticate"] == 'Bearer realm="foodservice"'


@hostile
@given(key=malformed, as_bearer=st.booleans())
def test_malformed_keys_get_the_401_without_a_query(
    key, as_bearer, db, api_client, django_assert_num_queries
):
    header = {"HTTP_AUTHORIZATION": f"Bearer {key}"} if as_bearer else {"HTTP_X_API_KEY": key}
    with django_assert_num_queries(0):
        response = api_client.get("/v1/market", **header)
    assert_unauthorized(response)


@hostile
@given(other=st.one_of(st.builds(secrets.generate), malformed))
def test_disagreeing_key_headers_get_the_401_without_a_query(
    other, api_client, key_and_secret, django_assert_num_queries
):
    _, secret = key_and_secret
    with django_assert_num_queries(0):
        response = api_client.get(
            "/v1/market", HTTP_X_API_KEY=secret, HTTP_AUTHORIZATION=f"Bearer {other}"
        )
    assert_unauthorized(response)


def test_agreeing_key_headers_are_accepted(api_client, key_and_secret):
    _, secret = key_and_secret
    response = api_client.get(
        "/v1/market", HTTP_X_API_KEY=secret, HTTP_AUTHORIZATION=f"Bearer {secret}"
    )
    assert response.status_code == 200


def test_every_401_body_is_byte_for_byte_the_same(db, api_client, key_and_secret):
    _, secret = key_and_secret
    bodies = {
        api_client.get("/v1/market", **headers).content
        for headers in (
            {},
            {"HTTP_X_API_KEY": "x" * 8192},
            {"HTTP_X_API_KEY": secrets.generate()},
            {"HTTP_X_API_KEY": secret[:-1]},
            {"HTTP_AUTHORIZATION": f"Basic {secret}"},
            {"HTTP_X_API_KEY": secret, "HTTP_AUTHORIZATION": "Bearer other"},
        )
    }
    assert len(bodies) == 1
