"""The dashboard's page of a key's allowed addresses (issue 29.3)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.audit.models import AuditAction, AuditEntry

pytestmark = pytest.mark.django_db


def test_the_dashboard_edits_the_list_and_every_change_is_audited(owner_client, verified):
    from keys.services import key_create

    key, _ = key_create(account=verified, label="ci")
    page = owner_client.get("/keys/").content.decode()
    assert f'href="/keys/{key.pk}/addresses/"' in page and "Any address" in page
    bad = owner_client.post(f"/keys/{key.pk}/addresses/", {"addresses": "10.0.0.1/8"})
    assert bad.status_code == 200 and "is not an IP address or a CIDR range" in bad.content.decode()
    response = owner_client.post(
        f"/keys/{key.pk}/addresses/", {"addresses": "198.51.100.0/24\n203.0.113.7"}
    )
    assert response.status_code == 302
    key.refresh_from_db()
    assert key.allowed_addresses == ["198.51.100.0/24", "203.0.113.7/32"]
    assert "2 allowed addresses" in owner_client.get("/keys/").content.decode()
    owner_client.post(f"/keys/{key.pk}/addresses/", {"addresses": ""})
    entries = AuditEntry.objects.filter(action=AuditAction.KEY_ADDRESSES).order_by("at", "id")
    assert [e.detail["to"] for e in entries] == ["198.51.100.0/24, 203.0.113.7/32", ""]
    assert entries[1].summary == f"Key {key.pk} “ci” allowed addresses set to any address"
    assert (
        "allowed addresses set to 198.51.100.0/24"
        in owner_client.get("/activity/").content.decode()
    )
    other = Client()
    assert other.get(f"/keys/{key.pk}/addresses/").status_code == 302  # sign-in first
