"""The keys page (issue 5.2; spec 2.1, 3.1): create, the secret shown once, rotate,
revoke, rename, the five-key limit, and 404 for another account's key."""

from __future__ import annotations

import logging
import re

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from accounts.models import Account
from keys import secrets
from keys.models import ApiKey
from keys.services import key_create, key_revoke

pytestmark = pytest.mark.django_db

SECRET = re.compile(r"svc_sk_live_[0-9A-Za-z]+")


def once_token(client, path="/keys/") -> str:
    return re.search(r'name="once" value="([^"]+)"', client.get(path).content.decode()).group(1)


def create(client, label="production server"):
    return client.post("/keys/new/", {"label": label, "once": once_token(client)})


def api_status(secret: str) -> int:
    return APIClient().get("/v1/market", headers={"X-API-Key": secret}).status_code


def test_keys_page_lists_label_state_hint_and_times(owner_client, verified):
    key, _ = key_create(account=verified, label="mobile app")
    revoked, _ = key_create(account=verified, label="old server")
    key_revoke(key=revoked)
    page = owner_client.get("/keys/").content.decode()
    assert "mobile app" in page and f"…{key.hint}" in page
    assert 'badge--active">Active' in page and 'badge--revoked">Revoked' in page
    assert "Never" in page  # last used
    assert "Requests this window" in page
    assert "2 of 5 active" not in page and "1 of 5 active" in page


def test_create_shows_the_secret_once_in_the_post_response(owner_client, verified):
    response = create(owner_client)
    assert response.status_code == 200
    assert (
        response["Cache-Control"].startswith("max-age=0")
        and "no-store" in response["Cache-Control"]
    )
    page = response.content.decode()
    (secret,) = set(SECRET.findall(page))
    assert "It will not be shown again" in page
    assert 'data-copy="secret"' in page
    key = ApiKey.objects.get(account=verified)
    assert key.label == "production server" and key.hint == secret[-4:]
    assert api_status(secret) == 200


def test_the_secret_is_on_no_later_page_nor_in_the_session(owner_client, verified):
    secret = SECRET.search(create(owner_client).content.decode()).group(0)
    for path in ("/keys/", "/", "/usage/", "/plan/"):
        assert secret not in owner_client.get(path).content.decode()
    assert secret not in str(dict(owner_client.session.items()))


def test_reloading_the_create_response_creates_nothing_and_shows_no_secret(owner_client, verified):
    token = once_token(owner_client)
    first = owner_client.post("/keys/new/", {"label": "k", "once": token})
    assert SECRET.search(first.content.decode())
    again = owner_client.post("/keys/new/", {"label": "k", "once": token}, follow=True)
    assert again.redirect_chain[-1][0] == "/keys/"
    assert not SECRET.search(again.content.decode())
    assert "a secret is shown only once" in again.content.decode()
    assert ApiKey.objects.filter(account=verified).count() == 1


def test_the_secret_is_never_logged(owner_client, verified, caplog):
    caplog.set_level(logging.DEBUG)
    secret = SECRET.search(create(owner_client).content.decode()).group(0)
    logged = " ".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
    assert "key created" in logged
    assert secret not in logged


def test_unverified_person_cannot_create_a_key_and_is_told_why(client, unverified):
    client.force_login(unverified.owner)
    response = create(client)
    assert response.status_code == 403
    assert "Verify your e-mail address to create API keys." in response.content.decode()
    assert not ApiKey.objects.exists()


def test_a_label_is_required(owner_client, verified):
    response = create(owner_client, label="   ")
    assert "This field is required." in response.content.decode()
    assert not ApiKey.objects.exists()
    assert re.search(r'name="once" value="[^"]+"', response.content.decode())


LIMIT_SAID = "The account holds 5 of 5 keys, the most it may hold. To free a slot, revoke"


def test_at_the_limit_create_is_disabled_with_one_message_before_the_click(owner_client, verified):
    for i in range(settings.MAX_KEYS_PER_ACCOUNT):
        key_create(account=verified, label=f"k{i}")
    page = owner_client.get("/keys/").content.decode()
    assert page.count(LIMIT_SAID) == 1
    button = re.search(r"<button[^>]*>Create key</button>", page).group(0)
    assert "disabled" in button and 'aria-describedby="create-blocked"' in button


def test_a_forced_sixth_key_is_refused_with_the_same_single_message(owner_client, verified):
    for i in range(settings.MAX_KEYS_PER_ACCOUNT):
        key_create(account=verified, label=f"k{i}")
    response = create(owner_client, label="sixth")
    page = response.content.decode()
    assert response.status_code == 409
    assert page.count(LIMIT_SAID) == 1
    assert "alert--error" not in page  # no second message in other words
    assert not SECRET.search(page)
    assert ApiKey.objects.filter(account=verified).count() == 5


def test_one_lost_key_advice_on_every_page_that_gives_it(owner_client, verified):
    key, _ = key_create(account=verified, label="a")
    advice = "Rotate the key to get a new secret, or revoke it and create a new one."
    for path in ("/", "/keys/", f"/keys/{key.pk}/revoke/"):
        assert advice in owner_client.get(path).content.decode(), path
    page = create(owner_client, label="b").content.decode()
    assert advice in page


def test_a_revoked_key_frees_a_place(owner_client, verified):
    keys = [key_create(account=verified, label=f"k{i}")[0] for i in range(5)]
    key_revoke(key=keys[0])
    assert SECRET.search(create(owner_client).content.decode())


def test_rotate_asks_first_then_shows_a_new_secret_once(owner_client, verified):
    key, old = key_create(account=verified, label="server")
    confirm = owner_client.get(f"/keys/{key.pk}/rotate/")
    assert "stops working immediately" in confirm.content.decode()
    assert api_status(old) == 200
    token = re.search(r'name="once" value="([^"]+)"', confirm.content.decode()).group(1)
    response = owner_client.post(f"/keys/{key.pk}/rotate/", {"once": token})
    (new,) = set(SECRET.findall(response.content.decode()))
    assert new != old and "It will not be shown again" in response.content.decode()
    assert api_status(old) == 401 and api_status(new) == 200
    key.refresh_from_db()
    assert key.label == "server" and key.rotated_at is not None


def test_reloading_the_rotate_response_does_not_rotate_again(owner_client, verified):
    key, _ = key_create(account=verified, label="server")
    token = once_token(owner_client, f"/keys/{key.pk}/rotate/")
    new = SECRET.search(
        owner_client.post(f"/keys/{key.pk}/rotate/", {"once": token}).content.decode()
    )
    again = owner_client.post(f"/keys/{key.pk}/rotate/", {"once": token}, follow=True)
    assert not SECRET.search(again.content.decode())
    assert api_status(new.group(0)) == 200


def test_a_revoked_key_cannot_be_rotated(owner_client, verified):
    key, _ = key_create(account=verified, label="server")
    key_revoke(key=key)
    response = owner_client.get(f"/keys/{key.pk}/rotate/", follow=True)
    assert "only active keys rotate" in response.content.decode()


def test_revoke_asks_first_then_the_key_stops_working(owner_client, verified):
    key, secret = key_create(account=verified, label="server")
    assert "cannot be undone" in owner_client.get(f"/keys/{key.pk}/revoke/").content.decode()
    assert api_status(secret) == 200
    response = owner_client.post(f"/keys/{key.pk}/revoke/", follow=True)
    assert "is revoked" in response.content.decode()
    assert api_status(secret) == 401
    key.refresh_from_db()
    assert key.revoked_at is not None


def test_rename_changes_only_the_label(owner_client, verified):
    key, secret = key_create(account=verified, label="server")
    response = owner_client.post(f"/keys/{key.pk}/rename/", {"label": "  web   server "})
    assert response["Location"] == "/keys/"
    key.refresh_from_db()
    assert key.label == "web server"
    assert api_status(secret) == 200


def test_rename_refuses_a_blank_label(owner_client, verified):
    key, _ = key_create(account=verified, label="server")
    response = owner_client.post(f"/keys/{key.pk}/rename/", {"label": ""})
    assert response.status_code == 200 and "This field is required." in response.content.decode()


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/keys/{id}/rotate/"),
        ("post", "/keys/{id}/rotate/"),
        ("get", "/keys/{id}/revoke/"),
        ("post", "/keys/{id}/revoke/"),
        ("get", "/keys/{id}/rename/"),
        ("post", "/keys/{id}/rename/"),
        ("get", "/usage/keys/{id}/"),
        ("get", "/usage/keys/{id}/usage.csv"),
    ],
)
def test_another_accounts_key_is_not_found_in_every_url(
    owner_client, other_account: Account, method, path
):
    key, secret = key_create(account=other_account, label="theirs")
    response = getattr(owner_client, method)(path.format(id=key.pk), {"label": "mine now"})
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()
    key.refresh_from_db()
    assert key.label == "theirs" and key.revoked_at is None
    assert api_status(secret) == 200


def test_an_unknown_key_id_is_not_found(owner_client):
    assert owner_client.get("/keys/999999/rotate/").status_code == 404


def test_forms_refuse_a_post_without_the_csrf_token(verified):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(verified.owner)
    key, _ = key_create(account=verified, label="server")
    for path in ("/keys/new/", f"/keys/{key.pk}/revoke/", "/plan/change/", "/market/"):
        response = client.post(path, {"label": "x", "tier": "sous_chef", "market": "US"})
        assert response.status_code == 403, path
    key.refresh_from_db()
    assert key.revoked_at is None


def test_secret_format_is_the_specified_one(owner_client, verified):
    secret = SECRET.search(create(owner_client).content.decode()).group(0)
    assert secrets.is_well_formed(secret)


def test_unverified_person_cannot_rotate_either(client, unverified):
    key, secret = key_create(account=unverified, label="made by staff")
    client.force_login(unverified.owner)
    response = client.post(f"/keys/{key.pk}/rotate/", {"once": "x"}, follow=True)
    assert "Verify your e-mail address before creating keys" in response.content.decode()
    assert not SECRET.search(response.content.decode())
    assert api_status(secret) == 200
