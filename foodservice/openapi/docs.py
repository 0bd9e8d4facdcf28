"""The API reference (issue 6): ``/openapi.json`` and ``/docs``. Neither needs a key
nor is metered.

``/docs`` is Redoc rendered from ``/openapi.json`` with every asset served by the app
itself (the Redoc bundle from drf-spectacular-sidecar, a small init script; no CDN, no
web fonts), so it works on machines without network access. The bundle is served by
``redoc_bundle`` rather than as a static file because it hard-codes one remote image
(the Redocly logo of its "API docs by Redocly" footer): that URL is replaced by an
empty inline image, so the page requests nothing from another origin. It sets its own
Content-Security-Policy, which ``foodservice.http.security`` keeps: the site-wide policy
plus what Redoc needs to run, inline styles (it styles itself with styled-components)
and a ``blob:`` worker (its search index).
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe
from drf_spectacular.renderers import OpenApiJsonRenderer2
from drf_spectacular.views import SpectacularJSONAPIView
from rest_framework.permissions import AllowAny

from foodservice.http.security import CONTENT_SECURITY_POLICY

DOCS_CONTENT_SECURITY_POLICY = (
    CONTENT_SECURITY_POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
    + "; worker-src 'self' blob:"
)


class SchemaView(SpectacularJSONAPIView):
    """``GET /openapi.json``: the OpenAPI 3 document, as ``application/json``."""

    renderer_classes = [OpenApiJsonRenderer2]
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []


@require_safe
def docs(request: HttpRequest) -> HttpResponse:
    """``GET /docs``: the reference page. Each problem's ``doc_url`` points into it."""
    response = render(request, "docs/redoc.html", {"schema_url": reverse("openapi")})
    response["Content-Security-Policy"] = DOCS_CONTENT_SECURITY_POLICY
    return response


REDOC_BUNDLE = "static/drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
REMOTE_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
BLANK_IMAGE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"


@cache
def _bundle() -> tuple[bytes, str]:
    """The sidecar's Redoc bundle without its remote image, and its ETag."""
    source = resources.files("drf_spectacular_sidecar").joinpath(REDOC_BUNDLE).read_text()
    body = source.replace(REMOTE_LOGO, BLANK_IMAGE).encode()
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


@require_safe
def redoc_bundle(request: HttpRequest) -> HttpResponse:
    """``GET /docs/redoc.js``: Redoc, served by the app (see the module docstring)."""
    body, etag = _bundle()
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["ETag"] = etag
    response["Cache-Control"] = "public, max-age=3600"
    return response
