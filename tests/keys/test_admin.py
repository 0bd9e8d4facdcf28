"""The staff admin for API keys: never a hash or a secret; revoking invalidates."""

from __future__ import annotations

import pytest

from keys import secrets
from keys.models import ApiKey
from keys.services import key_create, key_revoke
from tests.factories import AccountFactory, ApiKeyFactory
from tests.support.keys import principal_of

pytestmark = pytest.mark.django_db

KEYS = "/admin/keys/apikey/"


def test_changelist_lists_keys_without_hashes(admin_client, key_and_secret):
    key, secret = key_and_secret
    response = admin_client.get(KEYS)
    assert response.status_code == 200
    body = response.content.decode()
    assert "test key" in body
    assert key.account.owner.email in body
    assert key.secret_hash not in body
    assert secret not in body


def test_changelist_searches_by_label_and_owner_email(admin_client):
    ApiKeyFactory(label="billing robot", account=AccountFactory(owner__email="ann@example.com"))
    ApiKeyFactory(label="mobile app", account=AccountFactory(owner__email="ben@example.com"))
    by_label = admin_client.get(KEYS, {"q": "robot"}).content.decode()
    assert "billing robot" in by_label
    assert "mobile app" not in by_label
    by_owner = admin_client.get(KEYS, {"q": "ben@example"}).content.decode()
    assert "mobile app" in by_owner
    assert "billing robot" not in by_owner


@pytest.mark.parametrize(
    ("state", "shown"),
    [("active", "live one"), ("revoked", "revoked one"), ("expired", "expired one")],
)
def test_changelist_filters_by_state(admin_client, account, state, shown):
    ApiKeyFactory(account=account, label="live one")
    ApiKeyFactory(account=account, label="expiring one", expires_at="2999-01-01T00:00Z")
    key_revoke(key=ApiKeyFactory(account=account, label="revoked one"))
    ApiKeyFactory(account=account, label="expired one", expires_at="2000-01-01T00:00Z")
    labels = {"live one", "revoked one", "expired one"}
    body = admin_client.get(KEYS, {"state": state}).content.decode()
    assert shown in body
    assert not any(other in body for other in labels - {shown})
    assert ("expiring one" in body) == (state == "active")


def test_revoke_action_revokes_and_the_secrets_stop_working(admin_client, account):
    (first, s1), (second, s2), (_kept, s3) = (key_create(account=account, label=n) for n in "abc")
    assert all(principal_of(s) for s in (s1, s2, s3))  # now cached on Redis
    response = admin_client.post(
        KEYS, {"action": "revoke_selected", "_selected_action": [first.pk, second.pk]}
    )
    assert response.status_code == 302
    assert principal_of(s1) is None
    assert principal_of(s2) is None
    assert principal_of(s3) is not None
    assert set(ApiKey.objects.filter(revoked_at__isnull=False)) == {first, second}
    assert "Revoked 2 key(s)." in admin_client.get(KEYS).content.decode()


def test_change_page_shows_state_and_hint_but_never_the_hash(admin_client, account):
    secret = secrets.generate()
    key = ApiKeyFactory(account=account, secret=secret, label="shown")
    response = admin_client.get(f"{KEYS}{key.pk}/change/")
    assert response.status_code == 200
    body = response.content.decode()
    assert key.hint in body
    assert "Active" in body
    assert key.secret_hash not in body
    assert secret not in body
    assert "secret_hash" not in body


def test_history_page_never_shows_the_hash(admin_client, key_and_secret):
    key, _ = key_and_secret
    response = admin_client.get(f"{KEYS}{key.pk}/history/")
    assert response.status_code == 200
    assert key.secret_hash not in response.content.decode()


def test_label_can_be_renamed_and_is_cleaned_by_the_service(admin_client, key_and_secret):
    key, secret = key_and_secret
    response = admin_client.post(f"{KEYS}{key.pk}/change/", {"label": "  new   name "})
    assert response.status_code == 302
    key.refresh_from_db()
    assert key.label == "new name"
    assert principal_of(secret) is not None


def test_keys_are_not_added_or_deleted_here(admin_client, key_and_secret):
    key, _ = key_and_secret
    assert admin_client.get(f"{KEYS}add/").status_code == 403
    assert admin_client.post(f"{KEYS}{key.pk}/delete/", {"post": "yes"}).status_code == 403
    assert "delete_selected" not in admin_client.get(KEYS).content.decode()
    assert ApiKey.objects.filter(pk=key.pk).exists()
