"""What gunicorn, started with gunicorn.conf.py as ``make serve-prod`` does, answers to
requests at the edges of HTTP/1.1 (issue 24.5 and 24.6): every refusal is a problem
object, HTTP/1.1 without Host is a 400, a chunked body is read."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from gunicorn.http import errors as http_errors

from accounts.models import Account
from core.problems import all_problem_types
from foodservice.http import gunicorn_workers
from keys.services import key_create
from tests.factories import AccountFactory
from tests.support.servers import gunicorn, nginx

# What gunicorn and nginx answer, before any backend is read: the embedded pass only.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server, pytest.mark.http_edge]


def exchange(base: str, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``raw`` as is; (status, headers, body) of the answer, read to its end."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(raw)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            headers = dict(
                line.split(": ", 1) for line in head.decode("latin-1").split("\r\n")[1:] if line
            )
            length = {k.lower(): v for k, v in headers.items()}.get("content-length")
            if length is not None and len(body) >= int(length):
                break
    status = int(head.split(b" ", 2)[1])
    return status, {k.lower(): v for k, v in headers.items()}, body


def problem(headers: dict[str, str], body: bytes) -> dict:
    assert headers["content-type"] == "application/problem+json", headers
    return json.loads(body)


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: object) -> Iterator[str]:
    with gunicorn(workers=1, threads=2, config=True) as base:
        yield base


@pytest.fixture(scope="module")
def proxied(server: str) -> Iterator[str]:
    """nginx from deploy/nginx.conf.template in front of ``server``."""
    with nginx(server) as base:
        yield base


def chunked_put(
    base: str, secret: str, payload: bytes, *, request: bytes = b"PUT /v1/market"
) -> tuple[int, dict[str, str], bytes]:
    """``PUT /v1/market`` (or ``request``) with ``payload`` as one chunk of a chunked
    body."""
    chunks = b"%x\r\n%s\r\n0\r\n\r\n" % (len(payload), payload)
    return exchange(
        base,
        request + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: " + secret.encode()
        + b"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        b"Connection: close\r\n\r\n" + chunks,
    )  # fmt: skip


@pytest.mark.parametrize("length", [9_000, 20_000])
def test_behind_nginx_a_long_request_line_is_a_414_problem(proxied, length):
    target = "/v1/foods?q=" + "a" * length  # 9,000: gunicorn answers; 20,000: nginx
    status, headers, body = exchange(
        proxied, f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    )
    assert status == 414
    assert problem(headers, body)["type"] == "/problems/uri-too-long"


def test_behind_nginx_no_host_and_huge_headers_are_problems(proxied):
    status, headers, body = exchange(proxied, b"GET /v1/market HTTP/1.1\r\n\r\n")
    assert status == 400 and problem(headers, body)["type"] == "/problems/malformed-request"
    huge = "X-Big: " + "b" * 20_000
    status, headers, body = exchange(
        proxied, f"GET /v1/market HTTP/1.1\r\nHost: 127.0.0.1\r\n{huge}\r\n\r\n".encode()
    )
    assert status == 431
    assert problem(headers, body)["type"] == "/problems/header-fields-too-large"


def test_behind_nginx_a_chunked_put_body_is_read(proxied):
    account = AccountFactory(market="")
    _, secret = key_create(account=account, label="chunked")
    payload = b'{"market": "US"}'
    status, _headers, body = chunked_put(proxied, secret, payload)
    assert status == 200, body
    assert Account.objects.get(pk=account.pk).market == "US"


def test_a_9000_byte_request_line_is_a_414_problem(server):
    target = "/v1/foods?q=" + "a" * 9000
    status, headers, body = exchange(
        server, f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    )
    assert status == 414
    assert problem(headers, body)["type"] == "/problems/uri-too-long"


def test_a_request_line_under_the_limit_reaches_the_service(server):
    target = "/v1/foods?q=" + "a" * 8100
    status, headers, body = exchange(
        server, f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    )
    assert status == 401  # the service's own answer: no key
    assert problem(headers, body)["type"] == "/problems/unauthorized"


def test_too_many_header_fields_is_a_431_problem(server):
    fields = "".join(f"X-F{n}: v\r\n" for n in range(150))
    status, headers, body = exchange(
        server, f"GET /v1/market HTTP/1.1\r\nHost: 127.0.0.1\r\n{fields}\r\n".encode()
    )
    assert status == 431
    assert problem(headers, body)["type"] == "/problems/header-fields-too-large"


def test_a_malformed_request_line_is_a_400_problem(server):
    status, headers, body = exchange(server, b"GET /v1/market HTTP/9.9\r\nHost: x\r\n\r\n")
    assert status == 400
    assert problem(headers, body)["type"] == "/problems/malformed-request"


def test_http_1_1_without_host_is_a_400_problem(server):
    status, headers, body = exchange(server, b"GET /v1/market HTTP/1.1\r\n\r\n")
    assert status == 400
    assert "Host" in problem(headers, body)["detail"]
    # HTTP/1.0 has no such rule: it reaches the service (401 without a key).
    assert exchange(server, b"GET /v1/market HTTP/1.0\r\n\r\n")[0] == 401


def test_a_chunked_put_body_is_read(server):
    account = AccountFactory(market="")
    _, secret = key_create(account=account, label="chunked")
    payload = b'{"market": "US"}'
    status, _headers, body = chunked_put(server, secret, payload)
    assert status == 200, body
    assert Account.objects.get(pk=account.pk).market == "US"


def test_a_chunked_body_over_the_limit_is_a_400_problem(server):
    _, secret = key_create(account=AccountFactory(market=""), label="big")
    payload = b'{"market": "' + b"U" * 20_000 + b'"}'
    status, headers, body = chunked_put(server, secret, payload)
    assert status == 400
    assert problem(headers, body)["type"] == "/problems/malformed-request"


def test_a_chunked_analysis_body_over_the_api_default_is_read_whole(server):
    """POST /v1/analysis takes up to 256 KiB; the framing reads a chunked body up to the
    API's largest limit, so 100 long lines (over the 16 KiB default) arrive whole."""
    _, secret = key_create(account=AccountFactory(market="US"), label="meal")
    lines = [f"{n} tbsp butter " + "x" * 180 for n in range(100)]
    payload = json.dumps({"ingredients": lines}).encode()
    assert len(payload) > 16 * 1024
    status, _headers, body = chunked_put(server, secret, payload, request=b"POST /v1/analysis")
    assert status == 200, body
    assert len(json.loads(body)["data"]["ingredients"]) == 100


@pytest.mark.parametrize(
    ("exc", "kind"),
    [(http_errors.LimitRequestLine(9000, 8190), "uri-too-long"),
     (http_errors.LimitRequestHeaders("too many"), "header-fields-too-large"),
     (http_errors.InvalidHTTPVersion("9.9"), "malformed-request"),
     (http_errors.InvalidResponseHeaderName("bad"), "internal-error"),
     (RuntimeError("boom"), "internal-error")],
)  # fmt: skip
def test_refusals_map_to_problem_kinds(exc, kind):
    assert gunicorn_workers.refusal(exc).kind == kind
    raw = gunicorn_workers.response_bytes(gunicorn_workers.refusal(exc))
    assert b"Content-Type: application/problem+json" in raw and b"<html" not in raw


# --- nginx's own refusals, every one a problem object (issue 36.6) ------------------------

TEMPLATE = Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf.template"


def test_every_problem_nginx_answers_itself_is_a_known_kind_with_its_status():
    """Each ``location = /_problems/...`` of the template returns a problem object whose
    kind exists, with that kind's title and a ``doc_url`` to its section, and every
    ``error_page`` leads to one of them."""
    text = TEMPLATE.read_text()
    kinds = {cls.kind: cls for cls in all_problem_types()}
    locations = dict(
        re.findall(r"location = (/_problems/[\w-]+) \{[^}]*?return (\d+ '.*?');\n", text, re.S)
    )
    assert set(re.findall(r"error_page [\d ]+= (/_problems/[\w-]+);", text)) == set(locations)
    for answer in locations.values():
        status, _, raw = answer.partition(" ")
        body = json.loads(raw.strip("'").replace("\\'", "'").replace("${BASE_URL}", "https://x"))
        kind = body["type"].removeprefix("/problems/")
        assert set(body) == {"type", "title", "status", "detail", "doc_url"}
        assert body["status"] == int(status) == kinds[kind].status_code
        assert body["title"] == kinds[kind].title
        assert body["doc_url"] == f"https://x/docs#tag/{kind}"


def test_behind_nginx_trace_is_a_405_problem(proxied):
    for path in (b"/v1/market", b"/", b"/login/"):
        status, headers, body = exchange(
            proxied, b"TRACE " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        assert status == 405
        assert problem(headers, body) == {
            "type": "/problems/method-not-allowed",
            "title": "Method Not Allowed",
            "status": 405,
            "detail": "The TRACE method is not allowed on any path of this service.",
            "doc_url": "http://127.0.0.1:8000/docs#tag/method-not-allowed",
        }


def test_behind_nginx_the_services_own_405_keeps_its_allow_header(proxied):
    _, secret = key_create(account=AccountFactory(market="US"), label="allow")
    status, headers, body = exchange(
        proxied,
        b"DELETE /v1/market HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: " + secret.encode()
        + b"\r\nConnection: close\r\n\r\n",
    )  # fmt: skip
    assert status == 405 and "PUT" in headers["allow"]
    assert "see the Allow header" in problem(headers, body)["detail"]  # the service's


@pytest.mark.parametrize("coding", [b"gzip, chunked", b"identity", b"deflate"])
def test_behind_nginx_a_transfer_coding_other_than_chunked_is_a_400_problem(proxied, coding):
    status, headers, body = exchange(
        proxied,
        b"PUT /v1/market HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: " + coding + b"\r\nConnection: close\r\n\r\n0\r\n\r\n",
    )
    assert status == 400
    found = problem(headers, body)
    assert found["type"] == "/problems/malformed-request" and "chunked" in found["detail"]
    assert found["doc_url"] == "http://127.0.0.1:8000/docs#tag/malformed-request"


@pytest.mark.parametrize("version", [b"HTTP/2.0", b"HTTP/3.0", b"HTTP/9.9"])
def test_behind_nginx_an_http_version_it_does_not_speak_is_a_400_problem(proxied, version):
    status, headers, body = exchange(
        proxied, b"GET /v1/market " + version + b"\r\nHost: 127.0.0.1\r\n\r\n"
    )
    assert status == 400
    found = problem(headers, body)
    assert found["type"] == "/problems/malformed-request" and "HTTP/1.1" in found["detail"]
