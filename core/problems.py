"""Every problem the service can answer with, in one place (spec 2.5 and 7).

A problem is an exception that knows how to render itself as an RFC 9457
``application/problem+json`` body::

    {"type": "/problems/<kind>", "title": ..., "status": ..., "detail": ...,
     "doc_url": "{BASE_URL}/docs#tag/<kind>", ...members}

``foodservice.http.exception_handler`` renders them (and turns DRF's and Django's own
exceptions into them); the operator commands raise ``CommandError(problem.detail)``.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from django.conf import settings
from django.http import HttpRequest
from rest_framework import status
from rest_framework.exceptions import APIException

PROBLEM_CONTENT_TYPE = "application/problem+json"


def is_api_path(request: HttpRequest) -> bool:
    """True for the API (``/v1`` and below), whose every error is problem+json; the
    dashboard, the admin and /docs answer HTML pages instead."""
    return request.path_info == "/v1" or request.path_info.startswith("/v1/")


class _Settings(dict):
    """Fills ``{NAME}`` in a problem text from ``settings.NAME``."""

    def __missing__(self, name: str) -> Any:
        return getattr(settings, name)


class Problem(APIException):
    """Base of every problem. Subclasses set ``kind``, ``title``, ``status_code`` and
    ``default_detail``; ``members`` names extra body members, read from attributes.
    ``default_detail`` may name settings (``{MAX_KEYS_PER_ACCOUNT}``, ``{X:,}``):
    ``default_text()`` fills them in, so a text never repeats a limit by hand."""

    kind: ClassVar[str] = "internal-error"
    title: ClassVar[str] = "Internal Server Error"
    status_code: ClassVar[int] = status.HTTP_500_INTERNAL_SERVER_ERROR
    default_detail: ClassVar[str] = "The server could not complete the request."
    members: ClassVar[tuple[str, ...]] = ()

    def __init__(self, detail: str | None = None, **members: Any) -> None:
        super().__init__(detail or self.default_text())
        unknown = set(members) - set(self.members)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no members {sorted(unknown)}")
        self.extra = members

    @classmethod
    def default_text(cls) -> str:
        """``default_detail`` with the settings it names filled in."""
        return cls.default_detail.format_map(_Settings())

    @property
    def default_code(self) -> str:  # type: ignore[override]  # DRF reads it per instance
        return self.kind

    @classmethod
    def type_uri(cls) -> str:
        return f"/problems/{cls.kind}"

    @classmethod
    def doc_url(cls) -> str:
        return f"{settings.BASE_URL}/docs#tag/{cls.kind}"

    def body(self) -> dict[str, Any]:
        """The problem object. Nothing but these fields ever reaches a client."""
        data: dict[str, Any] = {
            "type": self.type_uri(),
            "title": self.title,
            "status": self.status_code,
            "detail": str(self.detail),
            "doc_url": self.doc_url(),
        }
        for name in self.members:
            if name in self.extra:
                data[name] = self.extra[name]
        return data

    def headers(self) -> dict[str, str]:
        """Response headers that belong to this problem (e.g. ``Retry-After``)."""
        return {}

    def encoded(self) -> bytes:
        """``body()`` as compact JSON bytes: the one rendering of a problem outside DRF's
        own (the exception handler's plain responses, and the WSGI and gunicorn layers
        that answer before Django runs)."""
        return json.dumps(self.body(), separators=(",", ":")).encode()


class Unauthorized(Problem):
    """One opaque 401 for a missing, malformed, revoked, expired or unknown key (spec 5.2).
    It never says which: every instance renders byte for byte the same."""

    kind = "unauthorized"
    title = "Unauthorized"
    status_code = status.HTTP_401_UNAUTHORIZED
    default_detail = "Valid authentication is required: send an API key as X-API-Key or Bearer."

    def __init__(self) -> None:  # no detail argument: the body must never vary
        super().__init__()

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": 'Bearer realm="foodservice"'}


class EnumerationForbidden(Problem):
    kind = "enumeration-forbidden"
    title = "Forbidden"
    status_code = status.HTTP_403_FORBIDDEN
    default_detail = "The Taster tier lists foods by search only: add a q parameter."


class ResultDepthExceeded(Problem):
    kind = "result-depth-exceeded"
    title = "Forbidden"
    status_code = status.HTTP_403_FORBIDDEN
    default_detail = (
        "The Taster tier reads only the first {TASTER_RESULT_DEPTH:,} matches of a search."
    )


class MarketNotSelected(Problem):
    kind = "market-not-selected"
    title = "Forbidden"
    status_code = status.HTTP_403_FORBIDDEN
    default_detail = "Choose the account's market first (PUT /v1/market or the dashboard)."


class _TooManyRequests(Problem):
    """The two 429s (spec 7). ``limit``: requests allowed in ``window``; ``window``: the
    window in seconds; ``retry_after``: whole seconds to wait, rounded up, at least 1."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    title = "Too Many Requests"
    members = ("limit", "window", "retry_after")

    def __init__(
        self,
        detail: str | None = None,
        *,
        limit: int,
        window: int,
        retry_after: int,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail, limit=limit, window=window, retry_after=retry_after)
        self._headers = {"Retry-After": str(retry_after), **(headers or {})}

    def headers(self) -> dict[str, str]:
        return dict(self._headers)


class QuotaExceeded(_TooManyRequests):
    """The account used its quota for the window. Carries Retry-After and the RateLimit
    headers (passed in by the throttle)."""

    kind = "quota-exceeded"
    default_detail = "The account has used its request quota for this window."


class BurstLimitExceeded(_TooManyRequests):
    """Requests arrive faster than the account's burst bucket refills. Carries only
    Retry-After, never the RateLimit headers (spec 7)."""

    kind = "burst-limit-exceeded"
    default_detail = "Too many requests at once: slow down and retry after Retry-After seconds."


class Forbidden(Problem):
    kind = "forbidden"
    title = "Forbidden"
    status_code = status.HTTP_403_FORBIDDEN
    default_detail = "This key may not perform this request."


class NotFound(Problem):
    kind = "not-found"
    title = "Not Found"
    status_code = status.HTTP_404_NOT_FOUND
    default_detail = "No resource exists at this path."


class MethodNotAllowed(Problem):
    kind = "method-not-allowed"
    title = "Method Not Allowed"
    status_code = status.HTTP_405_METHOD_NOT_ALLOWED
    default_detail = "This method is not allowed here; see the Allow header."


class MalformedRequest(Problem):
    """The request itself could not be read: a body that is not JSON, too deep or too big,
    or a header Django refuses."""

    kind = "malformed-request"
    title = "Bad Request"
    status_code = status.HTTP_400_BAD_REQUEST
    default_detail = "The request could not be read."


class UriTooLong(Problem):
    """The request line is over the HTTP server's limit (gunicorn: 8,190 bytes), answered
    by the server before the application (foodservice.http.gunicorn_workers, issue 24.5)."""

    kind = "uri-too-long"
    title = "URI Too Long"
    status_code = status.HTTP_414_REQUEST_URI_TOO_LONG
    default_detail = "The request line is over 8,190 bytes; shorten the query."


class HeaderFieldsTooLarge(Problem):
    """Too many header fields, or one over the server's limit (gunicorn: 100 fields of
    8,190 bytes), answered before the application (issue 24.5)."""

    kind = "header-fields-too-large"
    title = "Request Header Fields Too Large"
    status_code = status.HTTP_431_REQUEST_HEADER_FIELDS_TOO_LARGE
    default_detail = "The request's header fields are over the server's limits."


class InvalidParameter(Problem):
    """A query parameter is invalid. ``errors`` lists ``{"parameter", "detail"}``."""

    kind = "invalid-parameter"
    title = "Bad Request"
    status_code = status.HTTP_400_BAD_REQUEST
    default_detail = "A query parameter is invalid."
    members = ("errors",)

    def __init__(self, parameter: str, detail: str) -> None:
        super().__init__(
            f"{parameter}: {detail}", errors=[{"parameter": parameter, "detail": detail}]
        )


class _FieldErrors(Problem):
    """A problem about fields of the body: ``errors`` lists ``{"field", "detail"}`` and
    the detail joins them (no field given: the body as a whole, ``default_detail``)."""

    members = ("errors",)

    def __init__(self, errors: dict[str, str] | None = None) -> None:
        errors = errors or {"body": self.default_detail}
        text = "; ".join(f"{field}: {msg}" for field, msg in errors.items())
        super().__init__(text, errors=[{"field": f, "detail": m} for f, m in errors.items()])


class ValidationFailed(_FieldErrors):
    """The body is JSON but its content is invalid. ``errors`` lists ``{"field", "detail"}``."""

    kind = "validation-failed"
    title = "Unprocessable Content"
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_detail = "The request body is invalid."


class InvalidIngredients(_FieldErrors):
    """The body of ``POST /v1/analysis`` is not ``{"ingredients": [1 to 100 strings of at
    most 200 characters]}``. ``errors`` lists ``{"field", "detail"}`` (``ingredients[3]``)."""

    kind = "invalid-ingredients"
    title = "Bad Request"
    status_code = status.HTTP_400_BAD_REQUEST
    default_detail = "The ingredient list is invalid."


class UnsupportedMediaType(Problem):
    kind = "unsupported-media-type"
    title = "Unsupported Media Type"
    status_code = status.HTTP_415_UNSUPPORTED_MEDIA_TYPE
    default_detail = "Send the request body as application/json."


class KeyLimitReached(Problem):
    """A sixth key for an account (spec 2.1). Raised by the key services; the dashboard
    and the commands show the detail."""

    kind = "key-limit-reached"
    title = "Conflict"
    status_code = status.HTTP_409_CONFLICT
    default_detail = (
        "An account holds at most {MAX_KEYS_PER_ACCOUNT} keys: revoke one before creating another."
    )


class KeyNotActive(Problem):
    kind = "key-not-active"
    title = "Conflict"
    status_code = status.HTTP_409_CONFLICT
    default_detail = "Only an active key can be rotated."


class ServiceUnavailable(Problem):
    """A part the service needs (database, Redis) is down; retry shortly."""

    kind = "service-unavailable"
    title = "Service Unavailable"
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The service is briefly unavailable; retry in a few seconds."

    def headers(self) -> dict[str, str]:
        return {"Retry-After": "5"}


class QueryTimeout(Problem):
    """A catalogue read ran past its time budget (issue 36.1) and was stopped: the
    database's statement timeout or the request's own deadline. A 5xx, so the meter
    gives its unit back (spec 6: never counted)."""

    kind = "query-timeout"
    title = "Query Timeout"
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = (
        "The catalogue could not answer within this request's time budget, so the request "
        "was stopped and not counted; retry shortly, or send a narrower query."
    )

    def headers(self) -> dict[str, str]:
        return {"Retry-After": "2"}


class InternalError(Problem):
    """Anything unexpected. The detail is fixed: no trace or internal text leaks."""


def all_problem_types() -> list[type[Problem]]:
    """Every concrete problem kind (for the docs and the contract tests)."""
    seen: dict[str, type[Problem]] = {}
    stack: list[type[Problem]] = [Problem]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if not cls.__name__.startswith("_"):
            seen.setdefault(cls.kind, cls)
    return sorted(seen.values(), key=lambda c: c.kind)
