"""Django's session, user and messages middleware, left out of the API's requests
(issue 41.1).

They serve the dashboard and the admin. A ``/v1`` request carries an API key, never a
session: DRF authenticates it with the key alone (``keys.authentication``) and sets
``request.user`` itself, and nothing under ``/v1`` reads ``request.session`` or
messages. Yet each did its work on every API request: a session store, a lazy user, the
messages' cookie and session storages with their signer (~50 us of Python together on
this vm; RESULTS "Issue 41.1: the health check without a round trip, and the browser's
middleware off the API").

Each class here is Django's own, passing an API request straight on. They stay in
``MIDDLEWARE`` where Django's were, as subclasses of them (the admin's system checks
accept a subclass), so the dashboard and the admin get exactly Django's behaviour.
Django's ``CsrfViewMiddleware`` stays as it is: it costs ~6 us, its CSRF cookie read
matters to no API view (all CSRF-exempt), and ``check --deploy`` looks for it by name.
"""

from __future__ import annotations

from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.http import HttpRequest, HttpResponse

from core.problems import is_api_path


class _NotForTheApi:
    """Passes a ``/v1`` request on untouched; any other goes through the middleware."""

    async_mode: bool
    get_response: object

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not self.async_mode and is_api_path(request):
            return self.get_response(request)  # type: ignore[operator]
        return super().__call__(request)  # type: ignore[misc]


class SessionMiddleware(_NotForTheApi, sessions.SessionMiddleware):
    pass


class AuthenticationMiddleware(_NotForTheApi, auth.AuthenticationMiddleware):
    pass


class MessageMiddleware(_NotForTheApi, messages.MessageMiddleware):
    pass
