"""Hostile path parameters, query strings, headers and form fields on every route
(issue 11.6): NUL and other control characters get a 404 (path) or 400 (parameter,
header, form field), anything else a success or a clear 4xx, never a 500, on SQLite
and on PostgreSQL (which cannot store NUL: psycopg raised, answered 500)."""

from __future__ import annotations

from urllib.parse import quote, urlencode

import pytest
from django.contrib import admin
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from accounts.services import account_set_tier
from keys.services import key_create
from tests.factories import AccountFactory, UserFactory
from tests.hostile.profile import hostile

PROBLEM = "application/problem+json"
CONTROLS = st.text(st.characters(codec="latin-1", categories=("Cc",)), min_size=1, max_size=5)
any_text = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=30)
segments = st.one_of(
    any_text,
    st.tuples(any_text, CONTROLS, any_text).map("".join),
    st.sampled_from(["\x00", "ab\x00cd", "%00", "\x7f", "\x85", "0", "-1", "9" * 400, " "]),
)

API_ROUTES = ["/v1/foods/{}", "/v1/nutrients/{}", "/v1/categories/{}"]
DASHBOARD_ROUTES = [
    "/keys/{}/rotate/",
    "/keys/{}/revoke/",
    "/keys/{}/rename/",
    "/usage/keys/{}/",
    "/usage/keys/{}/usage.csv",
    "/verify-email/{}/",
    "/password-reset/{}/{}/",
]
ADMIN_MODELS = [f"/admin/{m._meta.app_label}/{m._meta.model_name}/" for m in admin.site._registry]
ADMIN_ROUTES = [f"{base}{{}}/{page}" for base in ADMIN_MODELS for page in ("change/", "history/")]


names = st.one_of(
    st.sampled_from(["q", "o", "p", "e", "all", "tier", "state", "_to_field"]), any_text
)
values = st.one_of(any_text, CONTROLS, st.sampled_from(["", "\x00", "9" * 400, "-1"]))


def has_control(text: str) -> bool:
    return any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in text)


@pytest.fixture
def unthrottled_secret(db) -> str:
    account = AccountFactory(market="US")
    account_set_tier(account=account, tier="head_chef")
    return key_create(account=account, label="hostile")[1]


@pytest.fixture
def staff(db) -> Client:
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


@hostile
@given(route=st.sampled_from(API_ROUTES), segment=segments)
def test_any_api_path_parameter_gets_a_clear_4xx(route, segment, api_client, unthrottled_secret):
    path = route.format(quote(segment, safe=""))
    response = api_client.get(path, HTTP_X_API_KEY=unthrottled_secret)
    assert response.status_code < 500, (path, response.content[:300])
    assert response.status_code == 200 or response["Content-Type"] == PROBLEM
    if has_control(segment) and "/" not in segment:
        assert response.status_code == 404
        assert "RateLimit-Limit" in response  # a metered 4xx like any other (spec 6)


@hostile
@given(name=names, value=values)
def test_a_control_character_in_an_api_parameter_is_a_metered_400(
    name, value, api_client, unthrottled_secret
):
    response = api_client.get(
        f"/v1/foods?{urlencode([(name, value)])}", HTTP_X_API_KEY=unthrottled_secret
    )
    assert response.status_code < 500
    if has_control(name) or has_control(value):
        assert response.status_code == 400
        assert response.json()["type"] == "/problems/invalid-parameter"
        assert "RateLimit-Limit" in response


@hostile
@given(route=st.sampled_from(DASHBOARD_ROUTES + ADMIN_ROUTES), segment=segments)
def test_any_dashboard_or_admin_path_parameter_gets_an_answer(route, segment, staff):
    path = route.format(*[quote(segment, safe="")] * route.count("{}"))
    response = staff.get(path)
    assert response.status_code < 500, (path, response.content[:300])
    if has_control(segment):
        assert response.status_code == 404


@hostile
@given(
    changelist=st.sampled_from(ADMIN_MODELS),
    query=st.lists(st.tuples(names, values), min_size=1, max_size=4),
)
def test_any_admin_list_filter_or_search_gets_an_answer(changelist, query, staff):
    response = staff.get(f"{changelist}?{urlencode(query)}")
    assert response.status_code < 500, (changelist, query, response.content[:300])
    if any(has_control(n) or has_control(v) for n, v in query):
        assert response.status_code == 400


header_values = st.tuples(
    st.text(st.characters(codec="latin-1"), max_size=20),  # WSGI headers are latin-1
    st.sampled_from(["\x00", "\x01", "\n", "\x1b", "\x7f", "\x85"]),
).map("".join)
headers = st.sampled_from(["HTTP_COOKIE", "HTTP_X_FORWARDED_FOR", "HTTP_IF_NONE_MATCH"])


@hostile
@given(
    path=st.sampled_from(["/", "/keys/", "/login/", "/admin/"]), header=headers, value=header_values
)
def test_a_control_character_in_a_header_is_a_400(path, header, value, staff):
    assert staff.get(path, **{header: value}).status_code == 400, (path, header, value)


@hostile
@given(
    path=st.sampled_from(["/v1/market", "/v1/foods/x", "/v1/foods?q=a"]),
    header=headers,
    value=header_values,
)
def test_a_control_character_in_an_api_header_never_reaches_the_database(
    path, header, value, api_client, unthrottled_secret
):
    """Under /v1 only the key header reaches the database (and a bad key is the 401)."""
    response = api_client.get(path, HTTP_X_API_KEY=unthrottled_secret, **{header: value})
    assert response.status_code < 500, (path, header, value)


@hostile
@given(
    path=st.sampled_from(["/login/", "/signup/", "/password-reset/", "/market/", "/keys/new/"]),
    field=st.sampled_from(["username", "email", "password", "market", "label", "password1"]),
    value=st.tuples(any_text, st.sampled_from(["\x00", "\x01", "\x1b", "\x7f"])).map("".join),
)
def test_a_control_character_in_a_form_field_is_a_400(path, field, value, staff):
    assert staff.post(path, {field: value}).status_code == 400


def test_the_api_key_headers_keep_the_opaque_401(api_client, db):
    response = api_client.get("/v1/market", HTTP_X_API_KEY="svc_sk_live_\x00")
    assert response.status_code == 401
    assert response.json()["type"] == "/problems/unauthorized"
