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


def test_a_revoked_key_shows_its_revoke_date_and_offers_no_addresses(owner_client, verified):
    # issue 40.8: a revoked key showed no revoke date and still offered its addresses
    from keys.services import key_create, key_revoke

    key, _ = key_create(account=verified, label="old laptop")
    key_revoke(key=key)
    page = owner_client.get("/keys/").content.decode()
    row = page[page.index(f'id="key-{key.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "revoked <time" in row and f"/keys/{key.pk}/addresses/" not in row
    response = owner_client.get(f"/keys/{key.pk}/addresses/")
    assert response.status_code == 302 and response["Location"] == "/keys/"
    response = owner_client.post(f"/keys/{key.pk}/addresses/", {"addresses": "10.0.0.1"})
    key.refresh_from_db()
    assert response.status_code == 302 and key.allowed_addresses == []


def test_last_used_shows_its_exact_time_on_hover(owner_client, verified):
    from django.utils import timezone

    from keys.models import ApiKey
    from keys.services import key_create

    key, _ = key_create(account=verified, label="laptop")
    used = timezone.now().replace(microsecond=0)
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=used)
    page = owner_client.get("/keys/").content.decode()
    assert f'title="{used:%-d %b %Y, %H:%M} UTC"' in page


def test_every_bad_entry_is_named_not_only_the_first(owner_client, verified):
    # issue 40.8: the form named only the first bad entry
    from keys.policies import AddressListError, parse_allowed_addresses
    from keys.services import key_create

    key, _ = key_create(account=verified, label="laptop")
    page = owner_client.post(
        f"/keys/{key.pk}/addresses/", {"addresses": "10.0.0.1\nnginx\n10.0.0.1/8\n::1\nbad"}
    ).content.decode()
    assert "“nginx”, “10.0.0.1/8” and “bad” are not IP addresses" in page
    with pytest.raises(AddressListError, match="and 2 more"):
        parse_allowed_addresses(" ".join(f"x{i}" for i in range(12)))
    with pytest.raises(AddressListError, match=r"^“x” is not an IP address"):
        parse_allowed_addresses("10.0.0.1 x")
