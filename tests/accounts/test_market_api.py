"""GET and PUT /v1/market (spec 3.2, 4)."""

from __future__ import annotations

import pytest

from accounts.models import Account

pytestmark = pytest.mark.django_db


@pytest.fixture
def headers(key_and_secret):
    return {"X-API-Key": key_and_secret[1]}


def test_get_shows_the_market_and_the_offered_ones(api_client, headers):
    response = api_client.get("/v1/market", headers=headers)
    assert response.status_code == 200
    assert response.json() == {
        "data": {
            "market": "US",
            "markets_offered": ["US"],
            "markets": [{"code": "US", "name": "United States"}],
        }
    }


def test_get_shows_null_until_a_market_is_chosen(api_client, account, headers):
    Account.objects.filter(pk=account.pk).update(market="")
    assert api_client.get("/v1/market", headers=headers).json()["data"]["market"] is None


def test_put_selects_the_market(api_client, account, headers):
    Account.objects.filter(pk=account.pk).update(market="")
    response = api_client.put("/v1/market", {"market": "us"}, format="json", headers=headers)
    assert response.status_code == 200
    assert response.json()["data"]["market"] == "US"
    assert api_client.get("/v1/market", headers=headers).json()["data"]["market"] == "US"


@pytest.mark.parametrize("body", [{"market": "FR"}, {"market": 12}, {}, {"country": "US"}])
def test_put_an_invalid_market_is_a_422_naming_the_field(api_client, headers, body):
    response = api_client.put("/v1/market", body, format="json", headers=headers)
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"] == "/problems/validation-failed"
    assert problem["errors"][0]["field"] == "market"


@pytest.mark.parametrize("body", [b'["US"]', b'"US"', b"null"])
def test_put_json_that_is_not_an_object_is_a_400(api_client, headers, body):
    response = api_client.put("/v1/market", body, content_type="application/json", headers=headers)
    assert response.status_code == 400
    assert response.json()["type"] == "/problems/malformed-request"


def test_market_endpoints_need_a_key(api_client):
    assert api_client.get("/v1/market").status_code == 401
    assert api_client.put("/v1/market", {"market": "US"}, format="json").status_code == 401
