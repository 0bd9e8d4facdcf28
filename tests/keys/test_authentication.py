"""Key authentication on /v1 (spec 5, 7)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import Account
from catalogue.market_api import MarketView
from keys import secrets
from keys.models import ApiKey
from keys.services import key_revoke, key_rotate
from tests.factories import ApiKeyFactory

pytestmark = pytest.mark.django_db

URL = "/v1/market"


def get(client: APIClient, **headers: str):
    return client.get(URL, headers=headers)


def test_x_api_key_and_bearer_give_identical_answers(api_client, key_and_secret):
    _, secret = key_and_secret
    by_header = get(api_client, **{"X-API-Key": secret})
    by_bearer = get(api_client, Authorization=f"Bearer {secret}")
    assert by_header.status_code == by_bearer.status_code == 200
    assert by_header.content == by_bearer.content
    assert by_header.json()["data"]["market"] == "US"


def test_bearer_scheme_is_case_insensitive(api_client, key_and_secret):
    _, secret = key_and_secret
    assert get(api_client, Authorization=f"bearer {secret}").status_code == 200


def test_both_headers_with_the_same_key_authenticate(api_client, key_and_secret):
    _, secret = key_and_secret
    response = get(api_client, **{"X-API-Key": secret, "Authorization": f"Bearer {secret}"})
    assert response.status_code == 200


def _bad_key_responses(api_client: APIClient, account: Account) -> dict[str, object]:
    revoked_secret, expired_secret, live_secret = (secrets.generate() for _ in range(3))
    key_revoke(key=ApiKeyFactory(account=account, secret=revoked_secret))
    ApiKeyFactory(account=account, secret=expired_secret, expires_at="2000-01-01T00:00Z")
    ApiKeyFactory(account=account, secret=live_secret)
    typo = live_secret[:-1] + ("A" if live_secret[-1] != "A" else "B")
    return {
        "missing": get(api_client),
        "malformed": get(api_client, **{"X-API-Key": "svc_sk_live_short"}),
        "bad checksum": get(api_client, **{"X-API-Key": typo}),
        "revoked": get(api_client, **{"X-API-Key": revoked_secret}),
        "expired": get(api_client, **{"X-API-Key": expired_secret}),
        "unknown": get(api_client, **{"X-API-Key": secrets.generate()}),
        "other scheme": get(api_client, Authorization=f"Basic {live_secret}"),
        "disagreeing headers": get(
            api_client,
            **{"X-API-Key": live_secret, "Authorization": f"Bearer {secrets.generate()}"},
        ),
        "empty": get(api_client, **{"X-API-Key": ""}),
        "oversized": get(api_client, **{"X-API-Key": "x" * 8192}),
    }


def test_every_bad_key_gets_the_same_opaque_401(api_client, account):
    responses = _bad_key_responses(api_client, account)
    bodies = {name: r.content for name, r in responses.items()}
    assert all(r.status_code == 401 for r in responses.values()), {
        n: r.status_code for n, r in responses.items()
    }
    assert len(set(bodies.values())) == 1, bodies
    first = next(iter(responses.values()))
    assert first["Content-Type"] == "application/problem+json"
    assert first["WWW-Authenticate"].startswith("Bearer")
    body = first.json()
    assert body["type"] == "/problems/unauthorized"
    assert body["title"] == "Unauthorized"
    assert "valid authentication is required" in body["detail"].lower()
    assert body["doc_url"].endswith("/docs#tag/unauthorized")


def test_malformed_keys_never_reach_the_database(api_client, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert get(api_client, **{"X-API-Key": "svc_sk_live_" + "a" * 49}).status_code == 401
        assert get(api_client, **{"X-API-Key": "é" * 40}).status_code == 401


def test_rotated_secret_fails_on_next_request(api_client, key_and_secret):
    key, old = key_and_secret
    assert get(api_client, **{"X-API-Key": old}).status_code == 200  # now cached
    key, new = key_rotate(key=key)
    assert get(api_client, **{"X-API-Key": old}).status_code == 401
    assert get(api_client, **{"X-API-Key": new}).status_code == 200


def test_revoked_key_fails_on_next_request(api_client, key_and_secret):
    key, secret = key_and_secret
    assert get(api_client, **{"X-API-Key": secret}).status_code == 200
    key_revoke(key=key)
    assert get(api_client, **{"X-API-Key": secret}).status_code == 401


def test_key_expiring_while_cached_fails(api_client, account, clock):
    secret = secrets.generate()
    ApiKeyFactory(account=account, secret=secret, expires_at="2026-03-10T14:30Z")
    assert get(api_client, **{"X-API-Key": secret}).status_code == 200
    clock.shift(5 * 60)
    assert get(api_client, **{"X-API-Key": secret}).status_code == 401


def test_hot_key_is_cached_only_in_the_shared_cache(
    api_client, key_and_secret, settings, django_assert_num_queries
):
    """With Redis a hot key costs no query; the embedded default has no shared cache,
    so it must not cache per process (another process may revoke the key)."""
    _, secret = key_and_secret
    get(api_client, **{"X-API-Key": secret})
    with django_assert_num_queries(0 if settings.REDIS_URL else 1):
        assert get(api_client, **{"X-API-Key": secret}).status_code == 200


def test_stored_key_never_holds_the_secret(key_and_secret):
    key, secret = key_and_secret
    stored = ApiKey.objects.filter(pk=key.pk).values().get()
    assert all(secret not in str(value) for value in stored.values())


def test_drf_sees_the_key_scheme_so_a_missing_key_is_a_401_not_a_403(rf):
    """DRF turns NotAuthenticated into a 403 unless the first authentication class
    names a WWW-Authenticate scheme (``authenticate_header``)."""
    view = MarketView()
    request = view.initialize_request(rf.get("/v1/market"))
    assert view.get_authenticate_header(request) == 'Bearer realm="foodservice"'
