"""Sign-in and sign-out (issue 5.1). The sign-in limit: test_signin_limit.py."""

from __future__ import annotations

import pytest

from tests.dashboard.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def sign_in(client, email, password=PASSWORD):
    return client.post("/login/", {"username": email, "password": password})


def test_right_password_signs_in_and_lands_on_the_dashboard(client, verified):
    response = sign_in(client, verified.owner.email.upper())
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/").status_code == 200


def test_unverified_people_can_sign_in(client, unverified):
    assert sign_in(client, unverified.owner.email)["Location"] == "/"


def test_wrong_password_gets_one_generic_message(client, verified):
    wrong = sign_in(client, verified.owner.email, "not the password").content.decode()
    unknown = sign_in(client, "nobody@example.com").content.decode()
    message = "That e-mail address and password do not match an account."
    assert message in wrong and message in unknown


def test_anonymous_people_are_sent_to_sign_in(client):
    for path in ("/", "/keys/", "/plan/", "/market/", "/usage/", "/usage/usage.csv"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/login/?next=")


def test_sign_out_is_a_post_and_ends_the_session(owner_client):
    assert owner_client.get("/logout/").status_code == 405
    response = owner_client.post("/logout/")
    assert response["Location"] == "/login/"
    assert owner_client.get("/keys/").status_code == 302


def test_the_sign_in_page_works_without_a_session(client):
    page = client.get("/login/").content.decode()
    assert 'autocomplete="current-password"' in page
    assert '<label for="id_username">E-mail address</label>' in page
