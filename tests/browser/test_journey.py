"""The whole dashboard journey in a real browser (issue 5, "Done when"): sign up,
verify, create a key and use it, choose a market, rotate, revoke, change plan and see
the new limits in the API's headers, watch the usage."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core import mail
from playwright.sync_api import expect

from metering.history import usage_flush

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EMAIL = "ada@example.com"
PASSWORD = "a long and unusual pass phrase"


def api(base: str, path: str, secret: str) -> tuple[int, dict[str, str], dict]:
    """GET ``path`` with the key; (status, headers, JSON body)."""
    request = urllib.request.Request(base + path, headers={"X-API-Key": secret})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read() or b"{}")


def verification_path() -> str:
    (message,) = mail.outbox
    return re.search(r"https?://[^/\s]+(/verify-email/\S+/)", message.body).group(1)


def create_key(page, label: str) -> str:
    page.goto("/keys/")
    page.get_by_label("Label").fill(label)
    page.get_by_role("button", name="Create key").click()
    page.wait_for_selector("#secret")
    return page.input_value("#secret")


def test_a_newcomer_signs_up_verifies_uses_rotates_revokes_and_upgrades(page, live_server, shot):
    base = live_server.url

    # Sign up: "check your inbox" (the same answer for a taken address, issue 11.3).
    page.goto("/signup/")
    shot(page, "signup")
    page.get_by_label("E-mail address").fill(EMAIL)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url(f"{base}/signup/sent/")
    expect(page.get_by_role("heading", name="Check your inbox")).to_be_visible()
    shot(page, "signup-sent")

    # Signing in before verifying is allowed; keys wait for the verification.
    page.goto("/login/")
    page.get_by_label("E-mail address").fill(EMAIL)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_text("Verify your e-mail address to create API keys.")).to_be_visible()
    shot(page, "overview-unverified")

    page.goto("/keys/")
    assert page.get_by_role("button", name="Create key").is_disabled()
    shot(page, "keys-unverified")

    # Verify with the link from the e-mail.
    page.goto(verification_path())
    page.wait_for_url(f"{base}/keys/")
    expect(page.get_by_text(f"{EMAIL} is verified")).to_be_visible()

    # Create a key: the secret is shown once, with a working copy button.
    secret = create_key(page, "laptop")
    assert secret.startswith("svc_sk_live_")
    expect(page.get_by_text("It will not be shown again")).to_be_visible()
    copy = page.get_by_role("button", name="Copy", exact=True)
    assert copy.is_visible()  # revealed by the script: the CSP let it run
    copy.click()
    assert page.evaluate("navigator.clipboard.readText()") == secret
    shot(page, "secret-shown-once")

    # Reload: the browser re-sends the POST; no second key, no secret.
    page.reload()
    page.wait_for_load_state()
    assert secret not in page.content()
    assert "svc_sk_live_" not in page.content()
    shot(page, "after-reload-secret-gone")

    # Use the key: the account has no market yet, so foods answer 403.
    status, _, body = api(base, "/v1/usage", secret)
    assert status == 200 and body["data"]["request_quota"] == 250
    status, headers, body = api(base, "/v1/foods?q=apple", secret)
    assert status == 403 and body["type"] == "/problems/market-not-selected"

    # Choose a market in the dashboard: foods answer, on Taster limits.
    page.goto("/market/")
    page.get_by_label("Market", exact=True).select_option("US")
    page.get_by_role("button", name="Save market").click()
    expect(page.get_by_text("Your market is now United States (US).")).to_be_visible()
    shot(page, "market-chosen")
    status, headers, _ = api(base, "/v1/foods?q=apple", secret)
    assert status == 200 and headers["RateLimit-Limit"] == "250"

    # Rotate: confirm, a new secret once; the old one is refused at once.
    page.goto("/keys/")
    shot(page, "keys-one-active")
    page.get_by_role("link", name="Rotate laptop").click()
    shot(page, "rotate-confirm")
    page.get_by_role("button", name="Rotate key").click()
    page.wait_for_selector("#secret")
    rotated = page.input_value("#secret")
    assert rotated != secret
    assert api(base, "/v1/foods?q=apple", secret)[0] == 401
    assert api(base, "/v1/foods?q=apple", rotated)[0] == 200

    # Revoke: confirm; the key is refused from the next request.
    usage_flush()  # what the worker's flusher does every few seconds
    page.goto("/keys/")
    page.get_by_role("link", name="Revoke laptop").click()
    shot(page, "revoke-confirm")
    page.get_by_role("button", name="Revoke key").click()
    expect(page.get_by_text("“laptop” is revoked")).to_be_visible()
    assert api(base, "/v1/foods?q=apple", rotated)[0] == 401
    shot(page, "keys-revoked")

    # Change plan: the rules first, then the new limits in the API's headers.
    server = create_key(page, "server")
    assert api(base, "/v1/foods?q=apple", server)[1]["RateLimit-Limit"] == "250"
    page.goto("/plan/")
    shot(page, "plan-taster")
    page.get_by_role("link", name="Upgrade to Sous Chef").click()
    expect(page.get_by_text("A monthly billing period starts now", exact=False)).to_be_visible()
    shot(page, "plan-change-confirm")
    page.get_by_role("button", name="Confirm: switch to Sous Chef").click()
    expect(page.get_by_text("You are now on Sous Chef.")).to_be_visible()
    assert page.locator("#plan-quota").inner_text() == "250,000 requests"
    shot(page, "plan-sous-chef")
    status, headers, _ = api(base, "/v1/foods?q=apple", server)
    assert status == 200 and headers["RateLimit-Limit"] == "250000"
    assert api(base, "/v1/usage", server)[2]["data"]["quota_window"] == "monthly"

    # Usage: the requests of both keys by outcome, the rotated key's history kept. A
    # burst past the bucket (50 at once on Sous Chef) puts burst 429s in the charts.
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda _: api(base, "/v1/foods/999999", server), range(120)))
    usage_flush()
    page.goto("/usage/")
    assert page.get_by_role(
        "group", name="Requests per hour by outcome, last 24 hours"
    ).is_visible()
    expect(page.get_by_role("list", name="Legend").first).to_be_visible()
    shot(page, "usage")
    page.get_by_role("link", name="History of laptop").click()
    assert "History kept across rotations" in page.content()
    shot(page, "key-usage")

    # Another account's key, or none, is a 404 page, not a debug page.
    page.goto("/keys/999999/rotate/")
    expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
    shot(page, "not-found")

    page.goto("/")
    shot(page, "overview-verified")
    page.set_viewport_size({"width": 390, "height": 844})  # a phone
    page.goto("/keys/")
    expect(page.get_by_role("link", name="Rotate server")).to_be_visible()
    shot(page, "keys-phone")
    page.set_viewport_size({"width": 1200, "height": 900})
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{base}/login/")
    shot(page, "signed-out")
    assert not [e for e in page.console_errors if "Content Security Policy" in e]


def test_sign_in_works_with_the_keyboard_alone(page, live_server, shot):
    from tests.factories import AccountFactory

    AccountFactory(owner__email="kb@example.com")
    page.goto("/login/")
    shot(page, "signin")
    assert page.evaluate("document.activeElement.id") == "id_username"  # autofocus
    page.keyboard.type("kb@example.com")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "id_password"
    page.keyboard.type("correct horse battery staple")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/")
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    page.keyboard.press("Tab")  # the first stop on every page skips the navigation
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"


def test_repeated_failed_sign_ins_are_blocked(page, live_server, shot):
    from tests.factories import AccountFactory

    AccountFactory(owner__email="kb@example.com")
    page.goto("/login/")
    for _ in range(11):  # the 11th is refused (issue 11.2: 10 per address and client)
        page.get_by_label("E-mail address").fill("kb@example.com")
        page.get_by_label("Password").fill("wrong")
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_load_state()
        if page.get_by_text("Too many failed sign-ins").is_visible():
            break
    expect(page.get_by_text("Too many failed sign-ins")).to_be_visible()
    shot(page, "signin-locked")
