"""Password reset by e-mail (issue 5.1)."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from accounts.models import User

pytestmark = pytest.mark.django_db

NEW = "another long pass phrase"


def test_reset_link_sets_a_new_password_and_verifies_the_address(client, unverified):
    response = client.post("/password-reset/", {"email": unverified.owner.email})
    assert response["Location"] == "/password-reset/sent/"
    link = re.search(r"http://testserver(/password-reset/\S+/)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)
    assert form.status_code == 200 and "Choose a new password" in form.content.decode()
    done = client.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW})
    assert done["Location"] == "/password-reset/done/"
    user = User.objects.get(pk=unverified.owner.pk)
    assert user.check_password(NEW)
    assert user.email_verified_at is not None


def test_unknown_address_looks_the_same_and_gets_a_notice_not_a_link(client, verified):
    """Issue 11.3: the same answer, and one e-mail either way (similar timing)."""
    known = client.post("/password-reset/", {"email": verified.owner.email})
    unknown = client.post("/password-reset/", {"email": "nobody@example.com"})
    assert (unknown.status_code, unknown["Location"]) == (known.status_code, known["Location"])
    assert [m.to for m in mail.outbox] == [[verified.owner.email], ["nobody@example.com"]]
    assert "no\nactive account uses this address" in mail.outbox[1].body
    assert "/password-reset/" not in mail.outbox[1].body


def test_a_used_reset_link_no_longer_works(client, verified):
    client.post("/password-reset/", {"email": verified.owner.email})
    link = re.search(r"http://testserver(/password-reset/\S+/)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW})
    again = client.get(link, follow=True)
    assert "This link does not work" in again.content.decode()


def test_the_demo_account_without_a_password_can_set_one_and_sign_in(client, run_command):
    """Issue 24.10: setup_demo makes an account with no usable password; the reset flow
    it prints the way to must reach it (Django's form skips such users), and the new
    password signs in."""
    output = run_command("setup_demo", "--port", "8121")
    assert "http://127.0.0.1:8121/password-reset/" in output
    assert "demo@example.com has no password yet" in output
    assert not User.objects.get(email="demo@example.com").has_usable_password()
    client.post("/password-reset/", {"email": "demo@example.com"})
    (message,) = mail.outbox
    link = re.search(r"http://testserver(/password-reset/\S+/)", message.body).group(1)
    form = client.get(link, follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW})
    signed_in = client.post("/login/", {"username": "demo@example.com", "password": NEW})
    assert signed_in.status_code == 302 and "_auth_user_id" in client.session
    assert "with the password set for it" in run_command("setup_demo")


def test_an_inactive_account_without_a_password_gets_no_link(client, run_command):
    run_command("setup_demo")
    User.objects.filter(email="demo@example.com").update(is_active=False)
    client.post("/password-reset/", {"email": "demo@example.com"})
    assert "/password-reset/" not in mail.outbox[0].body
