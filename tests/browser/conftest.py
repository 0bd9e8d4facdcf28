"""Playwright fixtures: Debian's Chromium (never a downloaded browser) driving the
live server. Screenshots go to ``test-artifacts/browser/``: of a failing test's page, and
of every page the tests visit when ``BROWSER_SCREENSHOTS=1``.

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


# Every page's screenshot costs Chromium a full-page PNG (a tenth of these tests' CPU):
# taken when BROWSER_SCREENSHOTS=1 asks for them, and of a failing test's page always.
EVERY_SHOT = os.environ.get("BROWSER_SCREENSHOTS", "") == "1"


@pytest.fixture
def shot():
    """``shot(page, "name")`` saves a full-page screenshot under test-artifacts/browser/
    when ``BROWSER_SCREENSHOTS=1``; otherwise only a failing test's page is saved
    (``pytest_runtest_makereport``)."""

    def save(page, name: str) -> Path | None:
        if not EVERY_SHOT:
            return None
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A failing browser test leaves its page as it was: ``failed-<test>.png``."""
    report = yield
    page = getattr(item, "funcargs", {}).get("page") or getattr(item, "funcargs", {}).get(
        "axe_page"
    )
    if report.when == "call" and report.failed and page is not None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = "".join(c if c.isalnum() else "-" for c in item.name)[:120]
        try:
            page.screenshot(path=str(ARTIFACTS / f"failed-{name}.png"), full_page=True)
        except Exception as exc:  # a crashed page: the failure itself is what matters
            report.sections.append(("screenshot", f"no screenshot: {exc}"))
    return report
