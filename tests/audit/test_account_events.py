"""The Activity log records the account's own life (issue 29): its creation, the
verification of its address (once), and every password reset."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client

from accounts.audit.models import ActorKind, AuditAction, AuditEntry

pytestmark = pytest.mark.django_db

PASSWORD = "a long pass phrase"
NEW = "another long pass phrase"


def actions() -> list[str]:
    return [e.action for e in AuditEntry.objects.order_by("at", "id")]


def test_sign_up_verification_and_reset_are_in_the_activity_log():
    client = Client(REMOTE_ADDR="198.51.100.4")
    client.post(
        "/signup/", {"email": "new@example.com", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert actions() == [AuditAction.ACCOUNT_CREATE]
    path = re.search(r"http://testserver(/verify-email/\S+/)", mail.outbox[0].body).group(1)
    client.get(path)
    client.get(path)  # a second opening changes nothing, and is not recorded again
    assert actions() == [AuditAction.ACCOUNT_CREATE, AuditAction.EMAIL_VERIFY]
    verify = AuditEntry.objects.get(action=AuditAction.EMAIL_VERIFY)
    assert (verify.actor_kind, verify.actor_label) == (ActorKind.USER, "new@example.com")
    assert verify.address == "198.51.100.4"

    client.post("/password-reset/", {"email": "new@example.com"})
    link = re.search(r"http://testserver(/password-reset/\S+/)", mail.outbox[-1].body).group(1)
    form = client.get(link, follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW})
    assert actions()[-1] == AuditAction.PASSWORD_RESET

    client.post("/login/", {"username": "new@example.com", "password": NEW})
    page = client.get("/activity/").content.decode()
    for words in ("Account created", "E-mail address verified", "Password reset"):
        assert words in page
