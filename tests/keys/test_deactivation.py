"""A deactivated owner's keys stop on the next request; reactivation restores them
(issue 11.1). The cross-worker check is in ``test_other_processes``."""

from __future__ import annotations

import pytest

from accounts.models import User
from core import problems
from keys.services import key_create, key_revoke
from tests.support.keys import principal_of

pytestmark = pytest.mark.django_db


def set_active(user: User, active: bool) -> None:
    user.is_active = active
    user.save()


def test_every_key_of_a_deactivated_owner_answers_the_opaque_401(api_client, account):
    _, first = key_create(account=account, label="one")
    _, second = key_create(account=account, label="two")
    assert api_client.get("/v1/market", HTTP_X_API_KEY=first).status_code == 200  # cached
    set_active(account.owner, False)
    for secret in (first, second):
        response = api_client.get("/v1/market", HTTP_X_API_KEY=secret)
        assert response.status_code == 401
        assert response.json()["type"] == "/problems/unauthorized"


def test_reactivation_restores_the_keys_as_they_were(account):
    _, live = key_create(account=account, label="live")
    revoked, dead = key_create(account=account, label="dead")
    key_revoke(key=revoked)
    set_active(account.owner, False)
    assert principal_of(live) is None
    set_active(account.owner, True)
    assert principal_of(live) is not None
    assert principal_of(dead) is None


def test_deactivating_in_the_admin_stops_the_keys(admin_client, account):
    _, secret = key_create(account=account, label="k")
    assert principal_of(secret) is not None  # now cached on Redis
    owner = account.owner
    response = admin_client.post(
        f"/admin/accounts/user/{owner.pk}/change/",
        {
            "email": owner.email,
            "email_verified_at": "",
            "first_name": "",
            "last_name": "",
            # is_active left out: the unticked checkbox
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
            "last_login_0": "",
            "last_login_1": "",
        },
    )
    assert response.status_code == 302, response.content[:2000]
    assert User.objects.get(pk=owner.pk).is_active is False
    assert principal_of(secret) is None


def test_signing_in_does_not_touch_the_key_cache(client, account, key_cache_down):
    """Saving ``last_login`` leaves ``is_active`` alone, so a sign-in never needs Redis."""
    response = client.post(
        "/login/", {"username": account.owner.email, "password": "correct horse battery staple"}
    )
    assert response.status_code == 302


def test_deactivation_is_refused_whole_while_the_key_cache_is_down(account, key_cache_down):
    key_create(account=account, label="k")
    with pytest.raises(problems.ServiceUnavailable):
        set_active(account.owner, False)
    assert User.objects.get(pk=account.owner.pk).is_active is True
