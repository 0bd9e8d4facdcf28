"""The client recipes of docs/api-guide.md (issue 14.6), run as written against a live
gunicorn server: each ``<!-- recipe: NAME -->`` block is executed, then its functions
are driven through a burst 429 (waited out), a spent quota (handed back at once, never
slept on) and, for the caches, a second key (never served the first key's response).

Retries are proved by the server's own count (every request admitted, though the
bucket holds fewer than were sent), never by timing; "never slept on" by a guard on
``time.sleep`` that fails the test on any wait longer than the recipe's cap.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accounts.services import account_set_tier
from accounts.tiers import TierLimits
from keys.services import key_create
from tests.factories import AccountFactory
from tests.support.servers import ROOT, fetch, gunicorn

pytestmark = [pytest.mark.server, pytest.mark.django_db(transaction=True)]

GUIDE = ROOT / "docs" / "api-guide.md"
RECORD = "/v1/nutrients/203"
# A search whose body depends on the key: meta.depth_limit is 1,000 on Taster, null paid.
SEARCH = "/v1/foods?q=butter&page_size=2"
BURSTY = TierLimits(quota=1000, window="day", rate=1.0, burst=2)  # 2 at once, 1 a second
SPENT_SOON = TierLimits(quota=2, window="day", rate=None, burst=None)
ROOMY = TierLimits(quota=1000, window="day", rate=None, burst=None)


def recipe(name: str) -> str:
    """The code block following ``<!-- recipe: name -->`` in the API guide."""
    text = GUIDE.read_text(encoding="utf-8")
    match = re.search(rf"<!-- recipe: {re.escape(name)} -->\n```\w+\n(.*?)```", text, re.S)
    assert match, f"no recipe {name!r} in {GUIDE}"
    return match.group(1)


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    env = {"GUNICORN_MAX_REQUESTS": "0", "METER_FAILURE_POLICY": "closed", "LOG_LEVEL": "ERROR"}
    with django_db_blocker.unblock(), gunicorn(workers=1, threads=4, **env) as base:
        yield base


def new_key(limits: TierLimits | None) -> str:
    """A key of a new account (market US) on negotiated ``limits`` (None: Taster)."""
    account = AccountFactory(market="US")
    if limits is not None:
        account_set_tier(account=account, tier="executive_chef", custom=limits)
    return key_create(account=account, label="recipe")[1]


def direct(base: str, path: str, key: str) -> dict[str, Any]:
    """What the server answers ``key`` for ``path``, with no cache in between."""
    status, _, body = fetch(base + path, {"X-API-Key": key})
    assert status == 200
    return json.loads(body)


def counted(base: str, key: str) -> int:
    """Requests the server counted for ``key``'s account (GET /v1/usage, unmetered)."""
    status, _, body = fetch(f"{base}/v1/usage", {"X-API-Key": key})
    assert status == 200
    return json.loads(body)["data"]["request_count"]


@pytest.fixture
def run_recipe(server: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Runs a Python recipe as a script would (its own namespace, in ``tmp_path``, with
    ``BASE`` and a roomy ``KEY``, the variables ``make run``'s export line sets) and
    returns its namespace."""

    def run(name: str) -> dict[str, Any]:
        monkeypatch.setenv("BASE", server)
        monkeypatch.setenv("KEY", new_key(ROOMY))
        monkeypatch.chdir(tmp_path)
        namespace: dict[str, Any] = {"__name__": f"recipe_{name.replace('-', '_')}"}
        exec(compile(recipe(name), f"{GUIDE}:{name}", "exec"), namespace)  # noqa: S102
        return namespace

    return run


@pytest.fixture
def no_long_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """``time.sleep`` that records each wait and fails on one over 60 s (the cap)."""
    real, waits = time.sleep, []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        assert seconds <= 60, f"slept on a {seconds} s Retry-After"
        real(seconds)

    monkeypatch.setattr(time, "sleep", sleep)
    return waits


def test_requests_retry_waits_out_a_burst_and_returns_a_spent_quota(
    server, small_catalogue, run_recipe, no_long_sleep
):
    recipe_ns = run_recipe("requests-retry")
    bursty = recipe_ns["api_session"](new_key(BURSTY))
    bursty_key = bursty.headers["X-API-Key"]
    assert [bursty.get(server + RECORD, timeout=10).status_code for _ in range(4)] == [200] * 4
    assert counted(server, bursty_key) == 4 and no_long_sleep  # 2 at once: it waited
    spent = recipe_ns["api_session"](new_key(SPENT_SOON))
    statuses = [spent.get(server + RECORD, timeout=10) for _ in range(3)]
    assert [r.status_code for r in statuses] == [200, 200, 429]
    assert statuses[2].json()["type"] == "/problems/quota-exceeded"
    assert int(statuses[2].headers["Retry-After"]) > 60  # returned, not slept on
    assert counted(server, spent.headers["X-API-Key"]) == 2


def test_httpx_retries_waits_out_a_burst_and_returns_a_spent_quota(
    server, small_catalogue, run_recipe, no_long_sleep
):
    recipe_ns = run_recipe("httpx-retries")
    bursty_key = new_key(BURSTY)
    with recipe_ns["api_client"](bursty_key) as client:
        assert [client.get(RECORD).status_code for _ in range(4)] == [200] * 4
    assert counted(server, bursty_key) == 4 and no_long_sleep
    spent_key = new_key(SPENT_SOON)
    with recipe_ns["api_client"](spent_key) as client:
        statuses = [client.get(RECORD) for _ in range(3)]
    assert [r.status_code for r in statuses] == [200, 200, 429]
    assert statuses[2].json()["type"] == "/problems/quota-exceeded"
    assert int(statuses[2].headers["Retry-After"]) > 60
    assert counted(server, spent_key) == 2


def test_requests_cache_keeps_each_keys_responses_apart(server, small_catalogue, run_recipe):
    recipe_ns = run_recipe("requests-cache")
    key, taster = new_key(ROOMY), new_key(None)
    session = recipe_ns["cached_session"](key)
    first, again = (session.get(server + SEARCH, timeout=10) for _ in range(2))
    assert (first.from_cache, again.from_cache) == (False, True)
    assert again.json() == first.json() and counted(server, key) == 1
    # Another key on the same session and cache: asked of the server, never the cache.
    theirs = session.get(server + SEARCH, headers={"X-API-Key": taster}, timeout=10)
    assert not theirs.from_cache and counted(server, taster) == 1
    assert theirs.json() == direct(server, SEARCH, taster) != first.json()
    assert theirs.json()["meta"]["depth_limit"] == 1000
    forged = session.get(server + SEARCH, headers={"X-API-Key": "svc_sk_live_nope"}, timeout=10)
    assert forged.status_code == 401 and not forged.from_cache


def test_requests_cache_revalidation_keeps_the_body_and_its_length(
    server, small_catalogue, run_recipe
):
    """Issue 14.1 through a real cache: the 304 (no Content-Length) refreshes the stored
    response, which keeps its body and a Content-Length that matches it."""
    recipe_ns = run_recipe("requests-cache")
    key = new_key(ROOMY)
    session = recipe_ns["cached_session"](key)
    first = session.get(server + RECORD, timeout=10)
    revalidated = session.get(server + RECORD, refresh=True, timeout=10)
    assert revalidated.from_cache and revalidated.status_code == 200
    assert revalidated.content == first.content and revalidated.json()["data"]["id"] == 203
    length = revalidated.headers.get("Content-Length")
    assert length is None or int(length) == len(revalidated.content)
    assert counted(server, key) == 2  # the revalidation reached the server (a 304)
    served = session.get(server + RECORD, timeout=10)
    assert served.from_cache and served.content == first.content


def test_hishel_in_rfc_mode_keeps_each_keys_responses_apart(
    server, small_catalogue, run_recipe, tmp_path
):
    recipe_ns = run_recipe("hishel")
    import hishel

    storage = hishel.SqliteStorage(database_path=str(tmp_path / "shared-cache.db"))
    key, taster = new_key(ROOMY), new_key(None)
    # Three clients on one cache (closing a client closes the storage: close them last).
    mine, theirs, forger = (
        recipe_ns["caching_client"](secret, storage) for secret in (key, taster, "svc_sk_live_nope")
    )
    try:
        first, again = mine.get(SEARCH), mine.get(SEARCH)
        assert first.extensions["caching"]["from_cache"] is False
        assert again.extensions["caching"]["from_cache"] is True and again.json() == first.json()
        assert counted(server, key) == 1
        # Another key: asked of the server (with the stored tag: it may answer 304 only
        # when that key's body is the same bytes), and given its own body.
        other = theirs.get(SEARCH)
        assert counted(server, taster) == 1
        assert other.json() == direct(server, SEARCH, taster) != first.json()
        assert forger.get(SEARCH).status_code == 401
    finally:
        for client in (mine, theirs, forger):
            client.close()


def run_curl(server: str, key: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BASE": server, "KEY": key}
    return subprocess.run(
        ["bash", "-c", recipe("curl")],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_curl_retries_a_burst_and_gives_up_on_a_spent_quota(server, small_catalogue, tmp_path):
    bursty = new_key(BURSTY)
    for _ in range(2):
        fetch(server + RECORD, {"X-API-Key": bursty})  # the bucket is empty now
    done = run_curl(server, bursty, tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["data"]["id"] == 203  # the last attempt's body only
    assert "Will retry in 1 second" in done.stderr
    assert counted(server, bursty) == 3
    spent = new_key(SPENT_SOON)
    for _ in range(2):
        fetch(server + RECORD, {"X-API-Key": spent})
    refused = run_curl(server, spent, tmp_path)
    assert refused.returncode == 22  # --fail-with-body: an HTTP error, body kept
    assert json.loads(refused.stdout)["type"] == "/problems/quota-exceeded"
    assert "Retry-After" in refused.stderr and "Will retry" not in refused.stderr
