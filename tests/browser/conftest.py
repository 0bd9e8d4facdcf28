"""Playwright fixtures: Debian's Chromium (never a downloaded browser) driving the
live server. Screenshots of every page go to ``test-artifacts/browser/``.

Playwright's sync API runs an event loop in the test's thread, so Django's guard
against ORM calls from async contexts is lifted for these tests only (the test reads
the e-mail outbox and flushes the usage history between browser steps).
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


@pytest.fixture
def page(live_server, monkeypatch) -> Iterator[object]:
    """A fresh Chromium page on the live server; console errors are collected in
    ``page.console_errors``.

    Playwright is started per test, after the database and the live server: its sync
    API keeps an event loop running in this thread, and a loop left running would make
    Django refuse database calls in every later test of the session."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": 1200, "height": 900}
        )
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.console_errors = []
        page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
        yield page
        context.close()
        browser.close()
        # Database connections opened by the test while Playwright's loop ran are not
        # the ones pytest-django closes; close them here, in the same context.
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
