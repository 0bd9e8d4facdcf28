"""The authentication backend every password sign-in goes through (issue 11.2).

Django's ``authenticate()`` calls it for the dashboard's sign-in form and the admin's
alike, so one sign-in limit (``accounts.signin_limit``) guards both. A refused attempt
is marked on the request (``notes_of(request).signin_refusal``) and raised as
``PermissionDenied``, which ``authenticate()`` turns into "no user" without checking
the password; ``SignInLimitMiddleware`` then answers the 429 page instead of the form.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.utils import timezone

from accounts import signin_limit
from accounts.models import User
from core.clientaddr import client_address
from core.requestnotes import notes_of


def client_of(request: HttpRequest) -> str:
    return client_address(request.META, proxies=settings.TRUSTED_PROXY_COUNT)


class LimitedModelBackend(ModelBackend):
    """``ModelBackend`` (e-mail and password, active users only) behind the sign-in limit.
    Without a request (a shell, a command) there is no client to count: unlimited."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        username = username if username is not None else kwargs.get(User.USERNAME_FIELD)
        if username is None or password is None:
            return None
        email = str(username).strip().lower()  # addresses are stored in lower case
        if request is None:
            return super().authenticate(request, username=email, password=password)
        outcome = signin_limit.attempt_begin(
            kind=signin_limit.Kind.SIGN_IN,
            email=email,
            client=client_of(request),
            now=timezone.now(),
        )
        if isinstance(outcome, signin_limit.Refusal):
            notes_of(request).signin_refusal = outcome
            raise PermissionDenied
        user = super().authenticate(request, username=email, password=password)
        if user is not None:
            signin_limit.attempt_succeeded(outcome)
        return user
