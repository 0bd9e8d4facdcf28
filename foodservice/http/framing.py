"""HTTP framing the WSGI server leaves to the application (issue 24.6), as a WSGI wrapper
around Django (``foodservice.wsgi``), so it holds under any server and any proxy:

- An HTTP/1.1 request without ``Host`` is a 400 problem (RFC 9112 3.2: "A server MUST
  respond with a 400 (Bad Request) status code to any HTTP/1.1 request message that
  lacks a Host header field"); gunicorn passes it on and Django would fall back on
  ``SERVER_NAME``.
- A ``Transfer-Encoding: chunked`` body is read (up to the body limit plus one byte) and
  handed on with its ``Content-Length``: Django reads ``CONTENT_LENGTH`` bytes only, so a
  chunked ``PUT /v1/market`` was read as empty. A body over the limit still fails the
  size checks that follow (the API's 400 ``malformed-request``, Django's own limit).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings

from core import problems

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class HttpFraming:
    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if environ.get("SERVER_PROTOCOL") == "HTTP/1.1" and not environ.get("HTTP_HOST"):
            problem = problems.MalformedRequest(
                "An HTTP/1.1 request must carry a Host header (RFC 9112, section 3.2)."
            )
            body = problem.encoded()
            start_response(
                f"{problem.status_code} {problem.title}",
                [("Content-Type", problems.PROBLEM_CONTENT_TYPE),
                 ("Content-Length", str(len(body)))],
            )  # fmt: skip
            return [body]
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not environ.get("CONTENT_LENGTH"):
            body = environ["wsgi.input"].read(body_limit(environ.get("PATH_INFO", "")) + 1)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        return self.app(environ, start_response)


def body_limit(path: str) -> int:
    """The largest body read for ``path``: the API's largest limit under /v1 (the meal
    analysis's; each view's parser then applies its own), Django's form limit elsewhere
    (dashboard, admin)."""
    if path == "/v1" or path.startswith("/v1/"):
        return max(settings.API_MAX_BODY_BYTES, settings.API_MAX_ANALYSIS_BODY_BYTES)
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 2_621_440
