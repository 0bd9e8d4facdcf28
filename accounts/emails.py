"""E-mails the dashboard sends: the verification link (spec 5.4), and the notice to an
owner whose address someone tried to sign up with (issue 11.3).

Sent through Django's e-mail framework (console backend by default, SMTP from the
environment, locmem under tests). The link is absolute, built from the request, so it
points at the host the person signed up on.
"""

from __future__ import annotations

from django.core.cache import cache
from django.core.mail import send_mail
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse

from accounts import tokens
from accounts.models import User

# A person may ask for a new verification e-mail at most once a minute.
RESEND_COOLDOWN_SECONDS = 60


def verification_link(*, request: HttpRequest, user: User) -> str:
    token = tokens.make_token(user_id=user.pk, email=user.email)
    return request.build_absolute_uri(reverse("verify-email", kwargs={"token": token}))


def send_verification_email(*, request: HttpRequest, user: User) -> None:
    """Send ``user`` a link that verifies their address for ``tokens.max_age()`` seconds."""
    context = {
        "user": user,
        "link": verification_link(request=request, user=user),
        "hours": tokens.max_age() // 3600,
    }
    subject = render_to_string("accounts/email/verify_subject.txt", context).strip()
    body = render_to_string("accounts/email/verify_body.txt", context)
    send_mail(subject, body, None, [user.email])


def send_signup_taken_email(*, request: HttpRequest, user: User) -> None:
    """Tell ``user`` someone tried to sign up with their address (issue 11.3): the
    sign-up page answered as for a new address, so only the owner learns of it."""
    context = {
        "user": user,
        "login": request.build_absolute_uri(reverse("login")),
        "reset": request.build_absolute_uri(reverse("password_reset")),
    }
    subject = render_to_string("accounts/email/signup_taken_subject.txt", context).strip()
    body = render_to_string("accounts/email/signup_taken_body.txt", context)
    send_mail(subject, body, None, [user.email])


def resend_verification_email(*, request: HttpRequest, user: User) -> bool:
    """Send the link again unless one was resent less than a minute ago.

    Returns False (nothing sent) inside the cooldown. ``cache.add`` is atomic on every
    cache backend, so two quick clicks send one e-mail."""
    if not cache.add(f"verify-resend:{user.pk}", 1, timeout=RESEND_COOLDOWN_SECONDS):
        return False
    send_verification_email(request=request, user=user)
    return True
