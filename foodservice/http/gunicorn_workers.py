"""gunicorn workers whose own refusals are problem objects (issue 24.5).

gunicorn answers a request it cannot parse (a request line over ``limit_request_line``,
too many or too large header fields, a malformed request line or chunk) itself, before
the application, with an HTML page: a client's error union then holds a string, and a
generated TypeScript client fails ``tsc --strict`` on ``error.type``. These workers keep
gunicorn's decisions (which request is refused, with which status) and render the
answer as the service's ``application/problem+json`` instead. ``gunicorn.conf.py``
selects them; ``GUNICORN_WORKER_CLASS`` picks ``gthread`` (default) or ``sync``.
"""

from __future__ import annotations

from typing import Any

from gunicorn import util
from gunicorn.http import errors as http_errors
from gunicorn.workers.gthread import ThreadWorker as _ThreadWorker
from gunicorn.workers.sync import SyncWorker as _SyncWorker

from core import problems


def refusal(exc: BaseException) -> problems.Problem:
    """The problem for a request gunicorn refused with ``exc`` (pure)."""
    if isinstance(exc, http_errors.LimitRequestLine):
        return problems.UriTooLong()
    if isinstance(exc, http_errors.LimitRequestHeaders):
        return problems.HeaderFieldsTooLarge()
    application_fault = (
        http_errors.InvalidResponseHeader,
        http_errors.InvalidResponseHeaderName,
        http_errors.ConfigurationProblem,
    )
    if isinstance(exc, application_fault):
        return problems.InternalError()
    if isinstance(exc, http_errors.ParseException):
        return problems.MalformedRequest("The server could not parse the request.")
    return problems.InternalError()


def response_bytes(problem: problems.Problem) -> bytes:
    """A whole HTTP/1.1 response carrying ``problem``; the connection closes after it
    (the request could not be framed, so nothing after it can be trusted)."""
    body = problem.encoded()
    head = (
        f"HTTP/1.1 {problem.status_code} {problem.title}\r\n"
        "Connection: close\r\n"
        f"Content-Type: {problems.PROBLEM_CONTENT_TYPE}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class _ProblemErrors:
    log: Any

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        problem = refusal(exc)
        ip = (addr or ("", -1))[0]
        if problem.status_code >= 500:
            self.log.exception("Error handling request")
        else:
            self.log.warning("Invalid request from ip=%s: %s", ip, exc)
        try:
            util.write_nonblock(client, response_bytes(problem))
        except Exception:  # the client may be gone; gunicorn does the same
            self.log.debug("Failed to send error message.")


class ThreadWorker(_ProblemErrors, _ThreadWorker):
    """gunicorn's ``gthread`` worker, refusals as problem objects."""


class SyncWorker(_ProblemErrors, _SyncWorker):
    """gunicorn's ``sync`` worker, refusals as problem objects."""
