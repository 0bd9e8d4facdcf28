"""Security of the dashboard (issue 5.7): headers, cookies, no inline scripts, CSRF."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from foodservice.http.security import CONTENT_SECURITY_POLICY

pytestmark = pytest.mark.django_db

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def test_every_page_carries_the_security_headers(owner_client):
    for path in ("/", "/keys/", "/plan/", "/market/", "/usage/"):
        response = owner_client.get(path)
        assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert response["X-Frame-Options"] == "DENY"
        assert response["Referrer-Policy"] == "same-origin"
        assert response["X-Content-Type-Options"] == "nosniff"


def test_the_policy_forbids_inline_and_foreign_scripts_and_framing():
    directives = dict(d.split(" ", 1) for d in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["script-src"] == "'self'"
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY
    assert directives["frame-ancestors"] == "'none'"
    assert directives["object-src"] == "'none'"


def test_templates_hold_no_inline_script_style_or_cdn():
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), template
        assert not re.search(r"\son[a-z]+=", text), template  # no onclick= handlers
        assert "style=" not in text and "<style" not in text, template
        assert not re.search(r"(src|href)=\"(https?:)?//", text), template


def test_a_response_that_sets_its_own_policy_keeps_it(rf):
    from django.http import HttpResponse

    from foodservice.http.security import SecurityHeadersMiddleware

    def view(request):
        response = HttpResponse()
        response["Content-Security-Policy"] = "default-src 'none'"
        return response

    response = SecurityHeadersMiddleware(view)(rf.get("/"))
    assert response["Content-Security-Policy"] == "default-src 'none'"


def test_session_cookie_is_http_only_and_secure_outside_debug(client, verified):
    from tests.dashboard.conftest import PASSWORD

    client.post("/login/", {"username": verified.owner.email, "password": PASSWORD})
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    assert cookie["httponly"] is True
    assert settings.DEBUG is False and cookie["secure"] is True


def test_static_files_are_served_by_the_app(client):
    from django.contrib.staticfiles import finders

    for name in ("foodservice/css/dashboard.css", "foodservice/js/dashboard.js"):
        assert finders.find(name), name


def test_sign_in_refuses_a_post_without_the_csrf_token(verified):
    response = Client(enforce_csrf_checks=True).post(
        "/login/", {"username": verified.owner.email, "password": "x"}
    )
    assert response.status_code == 403
    assert "This form has expired" in response.content.decode()


def test_unknown_dashboard_pages_get_the_products_404(owner_client):
    response = owner_client.get("/no-such-page/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_the_500_page_stands_alone_without_a_request():
    from django.template.loader import render_to_string

    page = render_to_string("500.html")
    assert "Something went wrong" in page and "dashboard.css" in page
