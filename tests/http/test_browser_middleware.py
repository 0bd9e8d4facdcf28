"""Issue 41.1: Django's session, user and messages middleware pass an API request
straight on (foodservice/http/browser.py) and do all their work for any other."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db

# What each sets: the session, the lazy user (`auser`; DRF sets `user` itself), messages.
BROWSER_ATTRIBUTES = ("session", "auser", "_messages")


def test_the_browser_middleware_is_django_s_own_subclassed_where_django_s_was():
    from django.contrib.auth.middleware import AuthenticationMiddleware
    from django.contrib.messages.middleware import MessageMiddleware
    from django.contrib.sessions.middleware import SessionMiddleware
    from django.middleware.csrf import CsrfViewMiddleware
    from django.utils.module_loading import import_string

    classes = [import_string(path) for path in settings.MIDDLEWARE]
    for django_s in (SessionMiddleware, AuthenticationMiddleware, MessageMiddleware):
        (ours,) = [c for c in classes if issubclass(c, django_s)]
        assert ours.__module__ == "foodservice.http.browser"
    assert CsrfViewMiddleware in classes  # Django's own: check --deploy names it
    # Django's order holds: sessions before the user and messages, CSRF before the user.
    names = [c.__name__ for c in classes]
    assert names.index("SessionMiddleware") < names.index("CsrfViewMiddleware")
    assert names.index("CsrfViewMiddleware") < names.index("AuthenticationMiddleware")
    assert names.index("AuthenticationMiddleware") < names.index("MessageMiddleware")


@pytest.mark.parametrize("path", ["/v1/market", "/v1/foods?q=apple", "/v1/no-such-route", "/v1"])
def test_an_api_request_gets_no_session_lazy_user_or_messages(
    api_client, paid_key_and_secret, path
):
    _, secret = paid_key_and_secret
    api_client.cookies[settings.SESSION_COOKIE_NAME] = "some-session"
    api_client.cookies[settings.CSRF_COOKIE_NAME] = "x" * 32
    response = api_client.get(path, HTTP_X_API_KEY=secret)
    assert response.status_code in (200, 404)
    request = response.wsgi_request
    for name in BROWSER_ATTRIBUTES:
        assert not hasattr(request, name), name
    assert not response.cookies
    assert "cookie" not in response.get("Vary", "").lower()


def test_a_dashboard_page_still_gets_every_one_of_them():
    response = Client().get("/login/")
    assert response.status_code == 200
    request = response.wsgi_request
    for name in BROWSER_ATTRIBUTES:
        assert hasattr(request, name), name
    assert "CSRF_COOKIE" in request.META
    assert settings.CSRF_COOKIE_NAME in response.cookies  # the form's token


def test_a_path_that_only_starts_like_the_api_is_the_dashboard_s():
    response = Client().get("/v1x/")
    assert response.status_code == 404
    request = response.wsgi_request
    for name in BROWSER_ATTRIBUTES:
        assert hasattr(request, name), name
