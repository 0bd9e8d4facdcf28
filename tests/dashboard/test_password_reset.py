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
