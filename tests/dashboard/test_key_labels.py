"""The keys page refuses a label with a bidi control character by the key services'
own rule (``keys.services.key_label_clean``, issue 36.6), before a create's one-time
token is spent; C1 controls are refused earlier by the control-character middleware."""

from __future__ import annotations

import re

import pytest

from keys.models import ApiKey
from keys.services import key_create

pytestmark = pytest.mark.django_db

SAID = "Must not hold control or bidi control characters (U+202E)."


def once_token(client, path="/keys/") -> str:
    return re.search(r'name="once" value="([^"]+)"', client.get(path).content.decode()).group(1)


def test_create_refuses_a_bidi_override_and_keeps_the_token(owner_client, verified):
    token = once_token(owner_client)
    response = owner_client.post("/keys/new/", {"label": "\u202egnp.exe", "once": token})
    assert response.status_code == 200
    assert SAID in response.content.decode()
    assert not ApiKey.objects.exists()
    # The form was refused before acting: its token was not spent, so the same form
    # with a good label creates the key.
    again = owner_client.post("/keys/new/", {"label": "gnp.exe", "once": token})
    assert ApiKey.objects.get().label == "gnp.exe"
    assert "svc_sk_live_" in again.content.decode()


def test_rename_refuses_a_bidi_isolate(owner_client, verified):
    key, _ = key_create(account=verified, label="server")
    response = owner_client.post(f"/keys/{key.pk}/rename/", {"label": "\u2067server"})
    assert response.status_code == 200
    assert "Must not hold control or bidi control characters (U+2067)." in (
        response.content.decode()
    )
    key.refresh_from_db()
    assert key.label == "server"


def test_a_c1_control_in_a_label_is_a_400(owner_client, verified):
    response = owner_client.post(
        "/keys/new/", {"label": "ci\u0085server", "once": once_token(owner_client)}
    )
    assert response.status_code == 400
    assert not ApiKey.objects.exists()
