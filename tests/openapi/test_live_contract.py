"""Contract test (b) of issue 6: schemathesis fuzzes a live gunicorn server with real
keys and a small catalogue; every response must conform to /openapi.json (status code,
content type, body, headers), and none may be a 5xx.

Keys: Head Chef (paid, unthrottled), Taster with market US (the server runs
``tests.openapi.server_settings``: a roomy Taster bucket, so the Taster *rules* get
explored rather than mostly 429s), and two Executive Chef accounts with a tiny
negotiated quota or burst, so each 429 is met and checked against the schema too.

Bounded for CI: ``DOCS_FUZZ_EXAMPLES`` examples per operation (default 25) and a fixed
seed (``DOCS_FUZZ_SEED``, default 1). A longer run: see docs/development.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from accounts.services import account_set_tier
from accounts.tiers import TierLimits
from keys.services import key_create
from tests.factories import AccountFactory
from tests.support.servers import gunicorn

pytestmark = [pytest.mark.server, pytest.mark.fuzz, pytest.mark.django_db(transaction=True)]

EXAMPLES = int(os.environ.get("DOCS_FUZZ_EXAMPLES", "25"))
SEED = os.environ.get("DOCS_FUZZ_SEED", "1")
# Every check schemathesis has, but one: "positive_data_acceptance" expects every
# schema-valid request to succeed, and some cannot be told apart in OpenAPI (a cursor
# from another search, page with cursor, min above max are each valid alone).
EXCLUDED_CHECKS = "positive_data_acceptance"


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker) -> Iterator[str]:
    settings = {
        "DJANGO_SETTINGS_MODULE": "tests.openapi.server_settings",
        "GUNICORN_MAX_REQUESTS": "0",
        "METER_FAILURE_POLICY": "closed",
        "LOG_LEVEL": "ERROR",
    }
    with django_db_blocker.unblock(), gunicorn(workers=1, threads=4, **settings) as base:
        yield base


def schemathesis(
    base: str, secret: str, har: Path, *, examples: int = EXAMPLES, phases: str = ""
) -> Counter:
    """Runs the schemathesis CLI against ``base`` with ``secret`` and fails the test with
    its report when it finds anything. Returns what the server answered: a count of
    status codes and problem types (from the HAR log written to ``har``)."""
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "--config-file",
        str(Path(__file__).with_name("schemathesis.toml")),
        "run",
        f"{base}/openapi.json",
        "--url",
        base,
        "--header",
        f"X-API-Key: {secret}",
        "--generation-with-security-parameters",
        "false",
        "--checks",
        "all",
        "--exclude-checks",
        EXCLUDED_CHECKS,
        "--max-examples",
        str(examples),
        "--seed",
        SEED,
        "--generation-database",
        "none",
        "--request-timeout",
        "10",
        "--no-color",
        "--report",
        "har",
        "--report-har-path",
        str(har),
        *(["--phases", phases] if phases else []),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return answers(har)


def answers(har: Path) -> Counter:
    """Status codes and problem types of every response in a HAR log."""
    seen: Counter = Counter()
    for entry in json.loads(har.read_text())["log"]["entries"]:
        response = entry["response"]
        seen[response["status"]] += 1
        text = response.get("content", {}).get("text") or ""
        if '"type":"/problems/' in text:
            seen[json.loads(text)["type"]] += 1
    return seen


def test_paid_tier_responses_conform_to_the_schema(
    server: str, small_catalogue, tmp_path: Path
) -> None:
    account = AccountFactory()
    account_set_tier(account=account, tier="head_chef")
    seen = schemathesis(server, key_create(account=account, label="fuzz")[1], tmp_path / "h")
    assert seen[200] and seen[304] and seen["/problems/invalid-parameter"]
    assert not seen[429]  # unthrottled


def test_taster_responses_conform_to_the_schema(
    server: str, small_catalogue, tmp_path: Path
) -> None:
    account = AccountFactory(market="US")
    seen = schemathesis(server, key_create(account=account, label="fuzz")[1], tmp_path / "h")
    assert seen[200] and seen["/problems/enumeration-forbidden"]


@pytest.mark.parametrize(
    ("limits", "kind"),
    [
        (TierLimits(quota=3, window="day", rate=None, burst=None), "quota-exceeded"),
        (TierLimits(quota=10_000, window="day", rate=0.1, burst=2), "burst-limit-exceeded"),
    ],
    ids=["quota", "burst"],
)
def test_both_429s_conform_to_the_schema(
    server: str, small_catalogue, tmp_path: Path, limits: TierLimits, kind: str
) -> None:
    account = AccountFactory(market="US")
    account_set_tier(account=account, tier="executive_chef", custom=limits)
    secret = key_create(account=account, label="fuzz")[1]
    seen = schemathesis(server, secret, tmp_path / "h", examples=10, phases="examples,fuzzing")
    assert seen[f"/problems/{kind}"] > 10
