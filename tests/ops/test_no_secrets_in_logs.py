"""No API key ever reaches a log (issue 7.4): a run of requests with real keys (good,
bad, rotated, revoked, in odd places) and the dashboard's sign-in and key creation, with
every log record captured at DEBUG, greps clean for ``svc_sk_live_``."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator

import pytest
from django.utils import timezone

from core.logformat import JsonFormatter, TextFormatter
from keys import secrets
from keys.services import key_create, key_revoke, key_rotate
from tests.factories import AccountFactory, UserFactory
from tests.support.servers import fetch, gunicorn

PREFIX = "svc_sk_live_"
PASSWORD = "correct horse battery staple"


@pytest.fixture
def all_logs() -> Iterator[io.StringIO]:
    """Every record of every logger at DEBUG, written through both formatters."""
    stream = io.StringIO()
    handlers = [logging.StreamHandler(stream), logging.StreamHandler(stream)]
    handlers[0].setFormatter(JsonFormatter())
    handlers[1].setFormatter(TextFormatter())
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.DEBUG)
    for handler in handlers:
        root.addHandler(handler)
    yield stream
    for handler in handlers:
        root.removeHandler(handler)
    root.setLevel(level)


def hostile_requests(client, *, good: str, rotated_away: str, revoked: str) -> None:
    """Every way a key can reach the service, right or wrong."""
    unknown = secrets.generate()
    for secret in (good, rotated_away, revoked, unknown, good[:-1], good + "x"):
        client.get("/v1/market", HTTP_X_API_KEY=secret)
        client.get("/v1/market", HTTP_AUTHORIZATION=f"Bearer {secret}")
        client.get("/v1/foods", {"q": "butter"}, HTTP_AUTHORIZATION=f"Bearer {secret}")
    client.get("/v1/market", HTTP_X_API_KEY=good, HTTP_AUTHORIZATION=f"Bearer {unknown}")
    client.get("/v1/market", HTTP_AUTHORIZATION=f"Basic {good}")
    client.get("/v1/market", {"api_key": good, "key": revoked})
    client.get(f"/v1/foods/{good}", HTTP_X_API_KEY=good)
    client.get(f"/{good}/")
    client.get("/v1/market", HTTP_X_API_KEY=good, HTTP_X_REQUEST_ID=good)
    client.put("/v1/market", {"market": good}, content_type="application/json", HTTP_X_API_KEY=good)
    client.put("/v1/market", f'{{"market": "{good}"', content_type="application/json")
    client.get("/v1/usage", HTTP_X_API_KEY=good)


@pytest.mark.django_db
def test_a_run_with_real_keys_and_the_dashboard_logs_no_secret(client, all_logs, caplog):
    caplog.set_level(logging.DEBUG)
    user = UserFactory(email="logs@example.com", email_verified_at=timezone.now())
    account = AccountFactory(owner=user, market="US")
    _, good = key_create(account=account, label="good")
    moved, rotated_away = key_create(account=account, label="rotated")
    moved, _ = key_rotate(key=moved)
    dead, revoked = key_create(account=account, label="revoked")
    key_revoke(key=dead)

    hostile_requests(client, good=good, rotated_away=rotated_away, revoked=revoked)

    # The dashboard: sign in (a password in the body), then create a key, whose raw
    # secret is in the response page and must be nowhere else.
    client.post("/login/", {"username": user.email, "password": PASSWORD})
    page = client.get("/keys/").content.decode()
    once = re.search(r'name="once" value="([^"]+)"', page)
    assert once, "the keys page offers a create form"
    created = client.post("/keys/new/", {"once": once.group(1), "label": "from the dashboard"})
    assert PREFIX in created.content.decode()  # the secret was made and shown once

    written = all_logs.getvalue()
    assert written.count('"logger": "foodservice.requests"') >= 25
    assert PREFIX not in written
    for record in caplog.records:  # the raw records too, before any formatter
        if record.name == "foodservice.requests":
            assert PREFIX not in json.dumps(record.__dict__, default=str)


@pytest.mark.server
@pytest.mark.django_db(transaction=True)
def test_a_real_server_writes_json_lines_and_no_secret(capfd):
    account = AccountFactory(market="US")
    key, good = key_create(account=account, label="good")
    capfd.readouterr()  # drop anything written before the server starts
    with gunicorn(workers=2, LOG_FORMAT="json", LOG_LEVEL="DEBUG") as base:
        for headers in (
            {"X-API-Key": good},
            {"Authorization": f"Bearer {good}"},
            {"X-API-Key": good[:-1]},
            {"X-API-Key": secrets.generate()},
            {"X-API-Key": good, "X-Request-ID": good},
        ):
            fetch(f"{base}/v1/market", headers)
        fetch(f"{base}/v1/market?api_key={good}")
        fetch(f"{base}/v1/foods/{good}", {"X-API-Key": good})
        status, response_headers, _ = fetch(f"{base}/v1/market", {"X-API-Key": good})
        assert status == 200
    out, err = capfd.readouterr()
    assert PREFIX not in out + err
    lines = [json.loads(line) for line in err.splitlines() if '"foodservice.requests"' in line]
    mine = [line for line in lines if line["request_id"] == response_headers["X-Request-ID"]]
    assert len(mine) == 1
    assert (mine[0]["account_id"], mine[0]["key_id"], mine[0]["tier"]) == (
        account.pk,
        key.pk,
        "taster",
    )
