"""Sign-up (issue 5.1; spec 5.4): e-mail and password, a Taster account, a verification
e-mail; the person signs in once verified. A taken address is answered alike
(issue 11.3)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher, identify_hasher
from django.core import mail
from django.test import Client

from accounts.models import Account, User
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

GOOD = "a long and unusual pass phrase"


def sign_up(client, email="Cook@Example.com", password=GOOD, again=None):
    data = {"email": email, "password1": password, "password2": again or password}
    return client.post("/signup/", data)


def test_sign_up_creates_a_taster_account_and_asks_to_check_the_inbox(client):
    response = sign_up(client)
    assert response.status_code == 302 and response["Location"] == "/signup/sent/"
    account = Account.objects.get(owner__email="cook@example.com")
    assert account.tier == "taster"
    assert account.owner.email_verified_at is None
    assert "_auth_user_id" not in client.session  # signs in once verified (spec 5.4)
    assert "Check your inbox" in client.get("/signup/sent/").content.decode()


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


def test_a_taken_address_gets_the_same_answer_and_its_owner_an_e_mail(client):
    """Issue 11.3: the page never tells who has an account."""
    new = sign_up(Client(), email="new@example.com")
    owner = UserFactory(email="cook@example.com", password="the owner's own secret")
    taken = sign_up(client, email="COOK@example.com")
    assert (taken.status_code, taken["Location"]) == (new.status_code, new["Location"])
    assert taken.cookies.keys() == new.cookies.keys()
    assert User.objects.filter(email="cook@example.com").count() == 1
    assert User.objects.get(pk=owner.pk).check_password("the owner's own secret")
    notice = mail.outbox[-1]
    assert notice.to == ["cook@example.com"]
    assert "already has an account" in notice.body
    assert "http://testserver/password-reset/" in notice.body


class CountingHasher(MD5PasswordHasher):
    algorithm = "counting_md5"
    calls = 0

    def encode(self, password: str, salt: str) -> str:
        CountingHasher.calls += 1
        return super().encode(password, salt)


def test_a_taken_address_costs_the_same_password_hash_as_a_new_one(client, settings):
    """The old answer came ten times faster for a taken address: no hash was computed."""
    settings.PASSWORD_HASHERS = ["tests.dashboard.test_signup.CountingHasher"]
    UserFactory(email="cook@example.com")
    counts = []
    for email in ("cook@example.com", "fresh@example.com"):
        CountingHasher.calls = 0
        sign_up(Client(), email=email)
        counts.append(CountingHasher.calls)
    assert counts == [1, 1]


def test_an_invalid_address_is_refused(client):
    response = sign_up(client, email="not-an-address")
    assert "Enter a valid email address." in response.content.decode()
    assert not User.objects.exists()


def test_signed_in_person_visiting_sign_up_goes_to_the_dashboard(owner_client):
    response = owner_client.get("/signup/")
    assert response.status_code == 302 and response["Location"] == "/"
