"""Key changes while the shared key cache (Redis) is unreachable are refused, whole:
other workers could otherwise keep serving the old state from the cache once Redis is
back with its data. Runs on both backends: the keys cache is pointed at a closed port."""

from __future__ import annotations

import pytest
from django.core.management.base import CommandError
from django.test import Client

from core import problems
from keys.models import ApiKey, KeyState
from keys.services import key_revoke, key_rotate
from tests.factories import AccountFactory

pytestmark = pytest.mark.django_db


def test_revoke_and_rotate_are_refused_and_change_nothing(key_and_secret, key_cache_down):
    key, _ = key_and_secret
    before = ApiKey.objects.values("secret_hash", "revoked_at").get(pk=key.pk)
    with pytest.raises(problems.ServiceUnavailable):
        key_revoke(key=key)
    with pytest.raises(problems.ServiceUnavailable):
        key_rotate(key=key)
    assert ApiKey.objects.values("secret_hash", "revoked_at").get(pk=key.pk) == before
    assert ApiKey.objects.get(pk=key.pk).state == KeyState.ACTIVE


def test_revoke_key_command_fails_with_one_clear_line(run_command, key_and_secret, key_cache_down):
    key, _ = key_and_secret
    with pytest.raises(CommandError, match="key cache is unreachable, so the change was not made"):
        run_command("revoke_key", str(key.pk))
    assert ApiKey.objects.get(pk=key.pk).state == KeyState.ACTIVE


def test_dashboard_revoke_shows_a_503_page_not_a_500(key_cache_down):
    account = AccountFactory(owner__email_verified_at="2026-01-01T00:00Z", market="US")
    key = ApiKey.objects.create(account=account, label="k", secret_hash="0" * 64, hint="abcd")
    client = Client(raise_request_exception=False)
    client.force_login(account.owner)
    response = client.post(f"/keys/{key.pk}/revoke/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert b"Nothing was changed." in response.content
    assert ApiKey.objects.get(pk=key.pk).state == KeyState.ACTIVE
