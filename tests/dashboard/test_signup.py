"""Sign-up (issue 5.1; spec 5.4): e-mail and password, a Taster account, a verification
e-mail, signed in but unverified."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.hashers import identify_hasher
from django.core import mail

from accounts.models import Account, User
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

GOOD = "a long and unusual pass phrase"


def sign_up(client, email="Cook@Example.com", password=GOOD, again=None):
    data = {"email": email, "password1": password, "password2": again or password}
    return client.post("/signup/", data)


def test_sign_up_creates_a_taster_account_and_signs_the_person_in(client):
    response = sign_up(client)
    assert response.status_code == 302 and response["Location"] == "/"
    account = Account.objects.get(owner__email="cook@example.com")
    assert account.tier == "taster"
    assert account.owner.email_verified_at is None
    assert client.get("/").context["user"] == account.owner


@pytest.mark.real_hashers
def test_password_is_hashed_with_argon2(client):
    sign_up(client)
    user = User.objects.get(email="cook@example.com")
    assert identify_hasher(user.password).algorithm == "argon2"


def test_sign_up_sends_a_verification_link(client):
    sign_up(client)
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["cook@example.com"]
    assert re.search(r"http://testserver/verify-email/[^/\s]+/", message.body)


@pytest.mark.parametrize(
    ("password", "again", "message"),
    [
        (GOOD, GOOD + "x", "The two passwords differ."),
        ("password123", None, "This password is too common."),
        ("short", None, "This password is too short."),
        ("cook@example.com1", None, "too similar"),
    ],
)
def test_weak_or_mismatched_passwords_are_refused(client, password, again, message):
    response = sign_up(client, password=password, again=again)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not User.objects.exists()
    assert mail.outbox == []


def test_an_address_already_taken_is_refused(client):
    UserFactory(email="cook@example.com")
    response = sign_up(client, email="COOK@example.com")
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert User.objects.count() == 1


def test_an_invalid_address_is_refused(client):
    response = sign_up(client, email="not-an-address")
    assert "Enter a valid email address." in response.content.decode()
    assert not User.objects.exists()


def test_signed_in_person_visiting_sign_up_goes_to_the_dashboard(owner_client):
    response = owner_client.get("/signup/")
    assert response.status_code == 302 and response["Location"] == "/"
