"""Usage you can debug in the dashboard (issue 40.3): requests by endpoint and answer on
the usage page and each key's page, and each key's recent-requests log, with refused
requests attributed to their key; never a secret."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from keys.services import key_create, key_revoke
from metering.history import usage_flush
from metering.outcomes import outcomes_flush

pytestmark = pytest.mark.django_db


def call(secret: str, path: str = "/v1/foods", **params: str) -> int:
    return APIClient().get(path, params, headers={"X-API-Key": secret}).status_code


def table(page: str, selector: str) -> str:
    return re.search(rf'<table class="stack-sm {selector}">.*?</table>', page, re.S).group(0)


def cells(row_html: str) -> dict[str, str]:
    return dict(re.findall(r'data-label="([^"]+)">([^<]*)<', row_html))


def test_the_usage_page_splits_requests_by_endpoint_and_answer(owner_client, verified, clock):
    _, secret = key_create(account=verified, label="a")
    revoked, revoked_secret = key_create(account=verified, label="b")
    assert call(secret, q="apple") == 200
    assert call(secret, "/v1/foods/sr28-99999") == 404
    assert call(secret, "/v1/foods/sr28-99998") == 404
    assert call(secret, q="apple", colour="red") == 400
    key_revoke(key=revoked)
    assert call(revoked_secret, q="apple") == 401
    usage_flush()
    outcomes_flush()
    page = owner_client.get("/usage/").content.decode()
    answers = table(page, "outcome-table")
    rows = re.findall(r"<tr>.*?</tr>", answers.split("<tbody>")[1].split("</tbody>")[0], re.S)
    by_endpoint = {re.search(r"<code>([^<]+)</code>", r).group(1): r for r in rows}
    assert set(by_endpoint) == {"GET /v1/foods", "GET /v1/foods/{public_id}"}
    foods = cells(by_endpoint["GET /v1/foods"])
    assert (foods["Success"], foods["Client error"], foods["Refused (401)"]) == ("1", "1", "1")
    assert "400 invalid-parameter: 1" in by_endpoint["GET /v1/foods"]
    assert "401 unauthorized: 1" in by_endpoint["GET /v1/foods"]
    one = cells(by_endpoint["GET /v1/foods/{public_id}"])
    assert one["Client error"] == "2"
    assert "404 not-found: 2" in by_endpoint["GET /v1/foods/{public_id}"]
    totals = cells(answers.split("<tfoot>")[1])
    assert (totals["Success"], totals["Client error"], totals["Refused (401)"]) == ("1", "3", "1")
    # The range switch applies: 7 days by day holds the same requests.
    week = table(owner_client.get("/usage/?range=7d").content.decode(), "outcome-table")
    assert cells(week.split("<tfoot>")[1]) == totals


def test_a_keys_page_shows_its_answers_and_its_recent_requests(owner_client, verified, clock):
    key, secret = key_create(account=verified, label="a")
    _other, other_secret = key_create(account=verified, label="b")
    assert call(secret, q="apple") == 200
    clock.shift(2)
    assert call(secret, "/v1/foods/sr28-99999") == 404
    clock.shift(2)
    assert call(other_secret, q="pear") == 200
    usage_flush()
    outcomes_flush()
    page = owner_client.get(f"/usage/keys/{key.pk}/").content.decode()
    assert secret not in page
    recent = table(page, "recent-table")
    rows = re.findall(r"<tr>.*?</tr>", recent.split("<tbody>")[1], re.S)
    assert len(rows) == 2  # this key's only
    assert "GET /v1/foods/sr28-99999" in rows[0]  # newest first
    assert ">404<" in rows[0] and "not-found" in rows[0]
    assert "GET /v1/foods<" in rows[1] and ">200<" in rows[1]
    assert "?q=" not in recent  # never the query string
    assert cells(rows[0])["Address"] == "" or "127.0.0.1" in rows[0]
    assert re.search(r'datetime="2026-03-10T14:25:02', rows[0])
    answers = table(page, "outcome-table")
    assert "GET /v1/foods/{public_id}" in answers


def test_a_never_admitted_key_says_where_its_refusals_are(owner_client, verified, clock):
    key, secret = key_create(account=verified, label="a")
    key_revoke(key=key)
    assert call(secret, q="apple") == 401
    outcomes_flush()
    page = owner_client.get(f"/usage/keys/{key.pk}/").content.decode()
    assert "No admitted requests yet: see the refused ones below." in page
    assert ">401<" in table(page, "recent-table")


def test_no_requests_read_as_such(owner_client, verified, clock):
    key, _ = key_create(account=verified, label="a")
    page = owner_client.get(f"/usage/keys/{key.pk}/").content.decode()
    assert 'id="no-answers"' in page and 'id="no-recent"' in page
    assert "No requests yet: this key has never been used." in page
