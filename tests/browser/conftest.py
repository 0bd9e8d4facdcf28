"""Playwright fixtures: Debian's Chromium (never a downloaded browser) driving the
live server. Screenshots of every page go to ``test-artifacts/browser/``.

One Chromium per module (``chromium``), a fresh context per test (``page``).
Playwright's sync API runs an event loop in the test's thread, so Django's guard
against ORM calls from async contexts is lifted for these modules only (the tests read
the e-mail outbox and flush the usage history between browser steps).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connections

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"


@pytest.fixture(scope="module")
def chromium(live_server) -> Iterator[object]:
    """One Chromium for the tests of a module (launching it costs more CPU than most of
    these tests); each test gets a context of its own (``page``), so no cookie, storage
    or permission passes from one test to the next.

    Playwright's sync API keeps an event loop running in this thread while it is
    started, and Django refuses database calls from a thread running a loop: the guard
    is lifted for the module (DJANGO_ALLOW_ASYNC_UNSAFE, restored afterwards) and
    Playwright starts after the live server, and stops before any later module's
    tests, which the guard protects again."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield browser
            browser.close()
            connections.close_all()


@pytest.fixture
def page(chromium, live_server) -> Iterator[object]:
    """A fresh Chromium page, in a context of its own, on the live server; console
    errors are collected in ``page.console_errors``."""
    context = chromium.new_context(
        base_url=live_server.url, viewport={"width": 1200, "height": 900}
    )
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.console_errors = []
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
    yield page
    context.close()
    # Database connections opened by the test while Playwright's loop ran are not the
    # ones pytest-django closes; close them here, in the same context.
    connections.close_all()


@pytest.fixture
def shot():
    """``shot(page, "name")`` saves a full-page screenshot under test-artifacts/browser/."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def save(page, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save
