"""``meta.relaxed`` of ``GET /v1/foods`` (issue 39, point 1) as the OpenAPI schema
documents it: present on every search, null unless words of q were left out, then an
object of exactly ``dropped`` and ``searched``."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from keys.services import key_create
from tests.factories import AccountFactory, FoodFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(db: None, unhurried: None) -> APIClient:
    FoodFactory(name="Peanut butter and jelly sandwich, NFS", data_type="survey")
    FoodFactory(name="Rice, fried, NFS", data_type="survey")
    account = AccountFactory(market="US")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_create(account=account, label="relaxed")[1])
    return client


def schema_meta() -> dict:  # type: ignore[type-arg]
    openapi = APIClient().get("/openapi.json").json()
    return openapi["components"]["schemas"]["FoodList"]["properties"]["meta"]


def test_relaxed_is_documented_and_served_as_documented(client):
    meta = schema_meta()
    relaxed = meta["properties"]["relaxed"]
    assert "relaxed" in meta["required"] and relaxed["nullable"] is True
    assert set(relaxed["required"]) == {"dropped", "searched"}
    assert relaxed["additionalProperties"] is False

    plain = client.get("/v1/foods", {"q": "fried rice"})
    assert plain.status_code == 200, plain.content
    assert plain.json()["meta"]["relaxed"] is None
    assert set(plain.json()["meta"]) == set(meta["required"])

    body = client.get("/v1/foods", {"q": "peanut butter jelly sandwich toast"}).json()
    assert set(body["meta"]["relaxed"]) == set(relaxed["required"])
    assert body["meta"]["relaxed"]["dropped"] == ["toast"]
    assert body["meta"]["relaxed"]["searched"] == body["meta"]["corrected_q"]
    assert body["data"][0]["name"] == "Peanut butter and jelly sandwich, NFS"
