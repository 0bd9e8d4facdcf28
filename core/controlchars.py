"""Refuses control characters before anything reaches the database (issue 11.6).

PostgreSQL cannot store NUL in text (psycopg raises, which was a 500), and no resource
id, query parameter or header of this service ever holds a control character, so they
are refused up front:

- a path segment: **404** (no resource can have such an id);
- a query parameter (name or value): **400** (``invalid-parameter`` under /v1);
- a header (dashboard and admin): **400**; under /v1 no header but the key reaches the
  database, and the key parser answers a malformed key with the opaque 401 (spec 5.2);
- a form field of a dashboard or admin POST: **400**; tab, line feed and carriage
  return stay allowed there (a text area sends them).

The dashboard and the admin are guarded by ``ControlCharacterMiddleware``, ahead of the
session and every view. Under /v1 the catalogue's views call ``refuse_in_api`` after
authentication and metering, so the 404/400 is a metered answer carrying its RateLimit
headers like any other 4xx (spec 6).

"Control character": Unicode category Cc (U+0000-U+001F, U+007F-U+009F). Headers may
carry a tab (RFC 9110 allows it inside a field value).

Text people write to be shown or read back (an analysis line, a key label) is held to
more: ``character_refusal`` also refuses Unicode's Bidi_Control characters, which
reorder what is shown around them (U+202E before "gnp.exe" shows it as "exe.png":
Trojan Source, CVE-2021-42574), and C1 controls such as U+0085 (NEL), which Python's
``str.split`` would silently take for a space (issue 36.6).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from django.core.exceptions import BadRequest
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.views import defaults

from core import problems
from core.problems import is_api_path

CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_HEADER_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
_FORM_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# spec 5.2: a malformed key is the opaque 401, decided by keys.authentication.
_KEY_HEADERS = frozenset({"HTTP_X_API_KEY", "HTTP_AUTHORIZATION"})
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _printable(name: str) -> str:
    """``name`` safe to echo in an error: control characters as ``\\xNN``."""
    return CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", name)[:100]


def _first_bad(pairs: Iterable[tuple[str, list[str]]], pattern: re.Pattern[str]) -> str | None:
    for name, values in pairs:
        if pattern.search(name) or any(pattern.search(v) for v in values):
            return name
    return None


def bad_header(meta: dict[str, object]) -> str | None:
    """The name of the first header (as sent, e.g. ``Cookie``) holding a control
    character, or None. Only ``HTTP_*`` entries are headers (a WSGI environ also carries
    the server's own variables)."""
    for key, value in meta.items():
        if not key.startswith("HTTP_") or key in _KEY_HEADERS or not isinstance(value, str):
            continue
        if _HEADER_CONTROL.search(value):
            return key[5:].replace("_", "-").title()
    return None


NOT_ALLOWED = "Control characters are not allowed."

# Unicode's Bidi_Control property: the marks (U+061C, U+200E, U+200F), the embeddings
# and overrides (U+202A-U+202E) and the isolates (U+2066-U+2069).
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_REFUSED = re.compile(r"[\x00-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]")
_REFUSED_BUT_SPACING = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]")


def character_refusal(text: str, *, spacing: bool = False) -> str:
    """Why ``text`` is refused, naming its first control character (Cc: C0, DEL, C1) or
    bidi control character (``U+202E``); ``""`` when it holds none. ``spacing``: tab,
    line feed and carriage return are allowed (text whose whitespace the caller folds)."""
    match = (_REFUSED_BUT_SPACING if spacing else _REFUSED).search(text)
    if match is None:
        return ""
    return f"Must not hold control or bidi control characters (U+{ord(match.group()):04X})."


def refuse_in_api(*, path_parameters: Iterable[object], query: QueryDict) -> None:
    """Raises the 404 problem for a control character in a path parameter and the
    ``invalid-parameter`` problem for one in a query parameter's name or value."""
    if any(isinstance(v, str) and CONTROL.search(v) for v in path_parameters):
        raise problems.NotFound()
    parameter = _first_bad(query.lists(), CONTROL)
    if parameter is not None:
        raise problems.InvalidParameter(_printable(parameter), NOT_ALLOWED)


class ControlCharacterMiddleware:
    """Answers a request carrying a control character with a 404 or 400 (module doc)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if is_api_path(request):
            return self.get_response(request)  # refuse_in_api, inside the metered views
        if CONTROL.search(request.path_info):
            raise Http404("control character in the path")
        parameter = _first_bad(request.GET.lists(), CONTROL)
        if parameter is not None:
            return _bad_request(request, f"{_printable(parameter)}: {NOT_ALLOWED}")
        header = bad_header(request.META)
        if header is not None:
            return _bad_request(request, f"The {header} header holds a control character.")
        if request.method == "POST" and request.content_type in _FORM_TYPES:
            field = _first_bad(request.POST.lists(), _FORM_CONTROL)
            if field is not None:
                detail = f"{_printable(field)}: control characters are not allowed."
                return _bad_request(request, detail)
        return self.get_response(request)


def _bad_request(request: HttpRequest, detail: str) -> HttpResponse:
    """Django's 400 page (templates/400.html), without logging a trace for it."""
    return defaults.bad_request(request, BadRequest(detail))
