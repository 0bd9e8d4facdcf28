"""The API reference (issue 6): ``/openapi.json`` and ``/docs``. Neither needs a key
nor is metered.

``/openapi.json`` is built once per process for each set of offered markets and then
served as bytes with an ETag (issue 41.4: building it costs ~35 ms of CPU, on a URL
anyone may call; every test of the reference paid it again).

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
from dataclasses import dataclass
from functools import cache
from importlib import resources

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe
from drf_spectacular.renderers import OpenApiJsonRenderer2
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularJSONAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request

from foodservice.http.security import CONTENT_SECURITY_POLICY
from foodservice.openapi.schema import offered_markets_now

DOCS_CONTENT_SECURITY_POLICY = (
    CONTENT_SECURITY_POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
    + "; worker-src 'self' blob:"
)


@dataclass(frozen=True, slots=True)
class _Document:
    body: bytes
    content_type: str
    disposition: str
    etag: str


# The served documents by the markets they list (None: the catalogue was unreadable) and
# the language asked for. A document is built from the code, the settings, the markets
# offered and that language: the code and the settings are those of the process, the
# markets are read on every request (a cached query), so no worker serves a stale one.
# Building one costs ~35 ms of CPU (half a megabyte of JSON), which an anonymous,
# unmetered URL must not cost every time.
_documents: dict[tuple[tuple[str, ...] | None, str], _Document] = {}
_DOCUMENTS_KEPT = 8
_LANGUAGES = frozenset(code for code, _ in settings.LANGUAGES)


# Settings no part of the document reads, which the test run sets around every test (the
# password hasher, the catalogue's and the meter's timings): changing them keeps it.
_NOT_IN_THE_DOCUMENT = frozenset(
    {
        "PASSWORD_HASHERS",
        "CATALOGUE_VERSION_SECONDS",
        "CATALOGUE_SHARE_WRITE_SECONDS",
        "METER_FLUSH_SECONDS",
    }
)


@receiver(setting_changed)
def _forget_documents(*, setting: str, **kwargs: object) -> None:
    """A settings change (tests' overrides) may change the document: build it again."""
    if setting not in _NOT_IN_THE_DOCUMENT:
        _documents.clear()


class SchemaView(SpectacularJSONAPIView):
    """``GET /openapi.json``: the OpenAPI 3 document, as ``application/json``, built once
    per process for each set of offered markets, with an ETag (``If-None-Match`` gets a
    304)."""

    renderer_classes = [OpenApiJsonRenderer2]
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []

    @extend_schema(exclude=True)  # as the view it extends: not an operation of the API
    def get(self, request: Request, *args: object, **kwargs: object) -> HttpResponse:
        markets = offered_markets_now()
        # drf-spectacular translates the document for ?lang= (USE_I18N): a language
        # Django knows is a document of its own; any other builds the default one.
        lang = request.query_params.get("lang", "")
        key = (tuple(markets) if markets is not None else None, lang if lang in _LANGUAGES else "")
        document = _documents.get(key)
        if document is None:
            document = self._build(request, *args, **kwargs)
            if len(_documents) >= _DOCUMENTS_KEPT:
                _documents.clear()
            _documents[key] = document
        if request.headers.get("If-None-Match") == document.etag:
            response = HttpResponse(status=304)
        else:
            response = HttpResponse(document.body, content_type=document.content_type)
            response["Content-Disposition"] = document.disposition
        response["ETag"] = document.etag
        return response

    def _build(self, request: Request, *args: object, **kwargs: object) -> _Document:
        response = super().get(request, *args, **kwargs)
        response.accepted_renderer = request.accepted_renderer
        response.accepted_media_type = request.accepted_media_type
        response.renderer_context = self.get_renderer_context()
        response.render()
        body = bytes(response.content)
        return _Document(
            body=body,
            content_type=response["Content-Type"],
            disposition=response["Content-Disposition"],
            etag='"' + hashlib.sha256(body).hexdigest()[:32] + '"',
        )


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
