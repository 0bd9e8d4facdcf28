"""Security headers for every response (issue 5: security).

``X-Frame-Options``, ``Referrer-Policy`` and ``X-Content-Type-Options`` come from
Django's own middleware and settings; this adds a Content-Security-Policy that allows
no inline script or style and nothing from another origin. The dashboard needs no
more: its one script and one stylesheet are static files served by the app itself.
A response that sets its own policy (e.g. an API docs page) keeps it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)


class SecurityHeadersMiddleware:
    """Adds ``Content-Security-Policy`` unless the response already has one."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response
