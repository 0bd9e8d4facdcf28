"""The key header parser under hostile input (issue 7.7): ``KeyHeaders.parse`` answers
a key, "no key", or the one ``Unauthorized`` problem, and nothing else, for any headers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.problems import Unauthorized
from keys import secrets
from keys.authentication import MAX_HEADER_LENGTH, KeyHeaders
from tests.hostile.profile import hostile, huge_text

# Anything a header value could hold once a server has decoded it (latin-1 in WSGI),
# and more: any code point but surrogates, control characters included.
header_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=300)
maybe = st.one_of(st.none(), header_text, huge_text)


def meta(api_key: str | None, authorization: str | None) -> dict[str, str]:
    headers = {}
    if api_key is not None:
        headers["HTTP_X_API_KEY"] = api_key
    if authorization is not None:
        headers["HTTP_AUTHORIZATION"] = authorization
    return headers


@hostile
@given(api_key=maybe, authorization=maybe)
def test_any_headers_give_a_bounded_key_none_or_unauthorized(api_key, authorization):
    try:
        parsed = KeyHeaders.parse(meta(api_key, authorization))
    except Unauthorized:
        return
    if api_key is None and authorization is None:
        assert parsed.key is None
    else:
        assert parsed.key and len(parsed.key) <= MAX_HEADER_LENGTH


@hostile
@given(value=huge_text)
def test_an_8_kb_key_is_refused_in_either_header(value):
    with pytest.raises(Unauthorized):
        KeyHeaders.parse(meta(value, None))
    with pytest.raises(Unauthorized):
        KeyHeaders.parse(meta(None, f"Bearer {value}"))


@hostile
@given(scheme=st.text(min_size=1, max_size=20).filter(lambda s: s.strip().lower() != "bearer"))
def test_any_scheme_but_bearer_is_refused(scheme):
    with pytest.raises(Unauthorized):
        KeyHeaders.parse(meta(None, f"{scheme} {secrets.generate()}"))


@hostile
@given(first=st.builds(secrets.generate), other=header_text)
def test_both_headers_must_carry_the_same_key(first, other):
    assert KeyHeaders.parse(meta(first, f"Bearer {first}")).key == first
    if other.strip() != first:
        with pytest.raises(Unauthorized):
            KeyHeaders.parse(meta(first, f"Bearer {other}"))
        with pytest.raises(Unauthorized):
            KeyHeaders.parse(meta(other, f"Bearer {first}"))
