"""E-mail verification (spec 5.4): a signed, time-limited link; resend; unverified
people can look around but cannot create keys."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from accounts import tokens
from accounts.models import User

pytestmark = pytest.mark.django_db


def link_for(user: User) -> str:
    return f"/verify-email/{tokens.make_token(user_id=user.pk, email=user.email)}/"


def test_the_e_mailed_link_verifies_the_address(client):
    client.post(
        "/signup/",
        {
            "email": "new@example.com",
            "password1": "a long pass phrase",
            "password2": "a long pass phrase",
        },
    )
    path = re.search(r"http://testserver(/verify-email/\S+/)", mail.outbox[0].body).group(1)
    response = client.get(path)  # sign-up does not sign in: verify, then sign in
    assert response.status_code == 302 and response["Location"] == "/login/"
    assert User.objects.get(email="new@example.com").email_verified_at is not None
    signed_in = client.post(
        "/login/", {"username": "new@example.com", "password": "a long pass phrase"}
    )
    assert signed_in["Location"] == "/"


def test_link_opened_while_signed_out_verifies_then_asks_to_sign_in(client, unverified):
    response = client.get(link_for(unverified.owner))
    assert response["Location"] == "/login/"
    unverified.owner.refresh_from_db()
    assert unverified.owner.email_verified_at is not None


def test_opening_the_link_twice_keeps_the_first_verification_time(client, unverified, clock):
    client.get(link_for(unverified.owner))
    first = User.objects.get(pk=unverified.owner.pk).email_verified_at
    clock.shift(3600)
    client.get(link_for(unverified.owner))
    assert User.objects.get(pk=unverified.owner.pk).email_verified_at == first


def test_a_tampered_link_is_refused(client, unverified):
    path = link_for(unverified.owner)
    response = client.get(path[:-3] + ("A" if path[-3] != "A" else "B") + path[-2:])
    assert response.status_code == 400
    assert "does not work" in response.content.decode()
    assert User.objects.get(pk=unverified.owner.pk).email_verified_at is None


def test_a_link_older_than_three_days_is_refused(client, unverified, clock):
    path = link_for(unverified.owner)
    clock.shift(tokens.DEFAULT_MAX_AGE + 1)
    assert client.get(path).status_code == 400
    assert User.objects.get(pk=unverified.owner.pk).email_verified_at is None


def test_a_link_for_an_address_since_changed_is_refused(client, unverified):
    path = link_for(unverified.owner)
    User.objects.filter(pk=unverified.owner.pk).update(email="changed@example.com")
    assert client.get(path).status_code == 400


def test_a_token_from_another_signer_is_refused():
    from django.core import signing

    forged = signing.TimestampSigner(salt="other").sign_object({"u": 1, "e": "a@example.com"})
    assert tokens.read_token(forged) is None
    assert tokens.read_token("garbage") is None


def test_resend_sends_a_new_link_once_a_minute(client, unverified):
    client.force_login(unverified.owner)
    first = client.post("/verify-email/resend/", follow=True)
    assert "We sent a new verification link" in first.content.decode()
    second = client.post("/verify-email/resend/", follow=True)
    assert "less than a minute ago" in second.content.decode()
    assert len(mail.outbox) == 1


def test_resend_for_a_verified_address_sends_nothing(owner_client):
    response = owner_client.post("/verify-email/resend/", follow=True)
    assert "already verified" in response.content.decode()
    assert mail.outbox == []


def test_resend_never_redirects_off_site(client, unverified):
    client.force_login(unverified.owner)
    response = client.post("/verify-email/resend/", {"next": "https://evil.example/"})
    assert response["Location"] == "/"
    response = client.post("/verify-email/resend/", {"next": "/keys/"})
    assert response["Location"] == "/keys/"


def test_resend_needs_a_post(client, unverified):
    client.force_login(unverified.owner)
    assert client.get("/verify-email/resend/").status_code == 405


def test_unverified_person_is_told_why_keys_cannot_be_created(client, unverified):
    client.force_login(unverified.owner)
    page = client.get("/keys/").content.decode()
    assert "Verify your e-mail address to create API keys." in page
    assert "Send the link again" in page
