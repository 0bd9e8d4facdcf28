"""One structured line per request, and the request id (issue 7.4)."""

from __future__ import annotations

import json
import logging
import sys

import pytest

from core.logformat import REQUEST_FIELDS, JsonFormatter, TextFormatter, redact
from foodservice.http.requestlog import request_id_for

SECRETISH = "svc_sk_live_" + "A" * 49


def request_lines(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "foodservice.requests"]


@pytest.fixture
def log(caplog):
    caplog.set_level(logging.INFO, logger="foodservice.requests")
    return caplog


def test_one_line_per_request_with_every_field(api_client, key_and_secret, log):
    key, secret = key_and_secret
    api_client.get("/v1/market", HTTP_X_API_KEY=secret)
    (record,) = request_lines(log)
    fields = {name: getattr(record, name) for name in REQUEST_FIELDS}
    assert fields["method"] == "GET"
    assert fields["path"] == "/v1/market"
    assert fields["endpoint"] == "v1:market"
    assert fields["status"] == 200
    assert fields["latency_ms"] >= 0
    assert fields["account_id"] == key.account_id
    assert fields["key_id"] == key.pk
    assert fields["tier"] == "taster"
    assert fields["metered"] is False  # the market endpoint is unmetered (spec 4)
    assert len(fields["request_id"]) == 32


def test_an_unauthenticated_request_logs_no_account(db, api_client, log):
    api_client.get("/v1/market", HTTP_X_API_KEY=SECRETISH)
    (record,) = request_lines(log)
    assert (record.status, record.account_id, record.key_id, record.tier) == (401, None, None, None)


def test_the_request_id_is_returned_and_logged(db, api_client, log):
    response = api_client.get("/healthz")
    (record,) = request_lines(log)
    assert response["X-Request-ID"] == record.request_id


def test_a_sane_incoming_request_id_is_kept(db, api_client, log):
    response = api_client.get("/healthz", HTTP_X_REQUEST_ID="edge-7f3a9c01.lb:42")
    assert response["X-Request-ID"] == "edge-7f3a9c01.lb:42"
    assert request_lines(log)[0].request_id == "edge-7f3a9c01.lb:42"


@pytest.mark.parametrize(
    "incoming",
    [
        "",
        "short",
        "has space in it",
        'quote"injection"here',
        "line\nbreak-in-request-id",
        "x" * 129,
        "é-non-ascii-request-id",
        SECRETISH,
    ],
)
def test_an_insane_incoming_request_id_is_replaced(incoming):
    replaced = request_id_for(incoming)
    assert replaced != incoming
    assert len(replaced) == 32 and int(replaced, 16) >= 0


def test_a_key_in_the_path_is_redacted_in_the_log(db, api_client, log):
    api_client.get(f"/v1/foods/{SECRETISH}")
    (record,) = request_lines(log)
    assert record.path == "/v1/foods/[redacted]"


def test_the_query_string_is_never_logged(db, api_client, log):
    api_client.get("/v1/market", {"api_key": "hunter2-query-secret"})
    (record,) = request_lines(log)
    assert record.path == "/v1/market"
    assert "hunter2" not in json.dumps(record.__dict__, default=str)


def test_static_and_unmatched_paths_get_bounded_endpoint_names(db, api_client, log):
    api_client.get("/static/no-such-file.css")
    api_client.get("/v1")
    names = [r.endpoint for r in request_lines(log)]
    assert names[0] == "static"
    assert names[1] != "/v1"


def make_record(**fields) -> logging.LogRecord:
    record = logging.LogRecord(
        "foodservice.requests", logging.INFO, __file__, 1, "request", (), None
    )
    record.__dict__.update(fields)
    return record


def test_json_formatter_writes_one_parseable_object_with_the_fields():
    record = make_record(method="GET", path="/v1/market", status=200, metered=True)
    line = JsonFormatter().format(record)
    assert "\n" not in line
    data = json.loads(line)
    assert data["logger"] == "foodservice.requests"
    assert (data["method"], data["path"], data["status"], data["metered"]) == (
        "GET",
        "/v1/market",
        200,
        True,
    )
    assert data["time"].endswith("+00:00")


def test_json_formatter_keeps_a_trace_on_one_line():
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    line = JsonFormatter().format(record)
    assert "\n" not in line
    assert "ValueError: boom" in json.loads(line)["exc"]


def test_text_formatter_quotes_a_value_that_could_forge_a_line():
    line = TextFormatter().format(make_record(path="/v1/a b\nfake=1", status=404))
    assert "\n" not in line
    assert 'path="/v1/a b\\nfake=1"' in line
    assert "status=404" in line


@pytest.mark.parametrize("formatter", [JsonFormatter(), TextFormatter()])
def test_formatters_redact_a_key_from_any_logger(formatter):
    record = logging.LogRecord(
        "django.request", logging.WARNING, __file__, 1, "Not Found: %s", (f"/x/{SECRETISH}",), None
    )
    line = formatter.format(record)
    assert "svc_sk_live_" not in line
    assert "[redacted]" in line


def test_redact_replaces_whole_and_partial_keys():
    assert redact(f"a {SECRETISH} b svc_sk_live_ c") == "a [redacted] b [redacted] c"


def test_a_metered_read_is_logged_as_metered(api_client, key_and_secret, log):
    _, secret = key_and_secret
    response = api_client.get("/v1/foods", {"q": "butter"}, HTTP_X_API_KEY=secret)
    assert "RateLimit-Limit" in response  # the meter decided on it
    (record,) = request_lines(log)
    assert record.metered is True
    assert record.endpoint == "v1:foods"
