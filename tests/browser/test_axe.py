"""axe-core on every page (issue 29): zero violations of WCAG 2.2 A and AA and axe's
best practices, at 390 and 1280 px, signed out and signed in with a lived-in account.

axe-core comes from npm, pinned by tools/axe/package-lock.json and installed by
``make axe`` (``npm ci``; CI runs it before the tests). The page's
Content-Security-Policy forbids inline scripts, so the context bypasses it to inject
axe; nothing else changes. Each violation is reported with its rule, help and nodes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections
from django.test import Client

from tests.factories import AccountFactory, FoodFactory
from tests.support.lived_in import lived_in_account

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "tools" / "axe" / "node_modules" / "axe-core"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
WIDTHS = (390, 1280)


@pytest.fixture
def axe_page(chromium, live_server):
    """A page in a context of its own that bypasses the CSP (to inject axe)."""
    if not (AXE / "axe.min.js").exists():
        pytest.fail("axe-core is missing: run `make axe` (npm ci in tools/axe)")
    context = chromium.new_context(base_url=live_server.url, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()
    connections.close_all()


def violations(page) -> list[str]:
    page.add_script_tag(path=str(AXE / "axe.min.js"))
    found = page.evaluate(
        """tags => axe.run(document, {runOnly: {type: "tag", values: tags}})
            .then(r => r.violations.map(v => v.id + " (" + v.impact + "): " + v.help + " at "
              + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | ")))""",
        TAGS,
    )
    return list(found)


def check(page, paths: dict[str, str]) -> None:
    failures = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for name, path in paths.items():
            page.goto(path)
            for violation in violations(page):
                failures.append(f"{name} at {width}px: {violation}")
            if name == "playground":  # its answer too (the lived-in Taster's quota is
                # spent: the refusal; tests/browser/test_layout.py shows a label)
                page.get_by_role("button", name="Analyse").click()
                page.locator("#result-heading, #refused-heading, #problem-heading").wait_for()
                failures += [f"playground (answer) at {width}px: {v}" for v in violations(page)]
                wide = page.evaluate("document.documentElement.scrollWidth > innerWidth")
                if wide:
                    failures.append(f"playground (answer) at {width}px: sideways scroll")
            if name == "usage":  # the opened numbers table and a focused bar too
                page.get_by_text("Show the numbers").first.click()
                page.locator(".stack").last.focus()
                failures += [f"usage (open) at {width}px: {v}" for v in violations(page)]
    assert not failures, "\n".join(failures)


def test_every_signed_out_page_has_no_violations(axe_page):
    AccountFactory(owner__email="kb@example.com")
    check(
        axe_page,
        {
            "signin": "/login/",
            "signup": "/signup/",
            "signup-sent": "/signup/sent/",
            "password-reset": "/password-reset/",
            "reset-sent": "/password-reset/sent/",
            "reset-invalid": "/password-reset/MQ/set-password/",
            "verify-failed": "/verify-email/nonsense/",
            "not-found": "/no-such-page/",
        },
    )


def test_every_signed_in_page_has_no_violations(axe_page, live_server):
    account, keys = lived_in_account()
    client = Client()
    client.force_login(account.owner)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    axe_page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
    )
    key = keys[0]
    food = FoodFactory(name="Butter, salted", nutrients={"208": 717.0, "204": 81.11},
                       portions=[{"description": "1 tbsp", "gram_weight": 14.2}])  # fmt: skip
    check(
        axe_page,
        {
            "overview": "/",
            "keys": "/keys/",
            "key-rename": f"/keys/{key.pk}/rename/",
            "key-rotate": f"/keys/{key.pk}/rotate/",
            "key-revoke": f"/keys/{key.pk}/revoke/",
            "key-addresses": f"/keys/{key.pk}/addresses/",
            "usage": "/usage/",
            "usage-30d": "/usage/?range=30d",
            "key-usage": f"/usage/keys/{key.pk}/?range=7d",
            "plan": "/plan/",
            "plan-change": "/plan/change/?tier=sous_chef",
            "market": "/market/",
            "activity": "/activity/",
            "playground": "/playground/",
            "food": f"/foods/{food.public_id}/",
            "not-found": "/no-such-page/",
        },
    )


def test_the_api_reference_has_no_violations(axe_page):
    # Issue 40.5: Redoc as /docs renders it, mended by docs.js (controls inside controls,
    # heading levels, scrollable regions) and docs.css (target sizes): as it opens,
    # with a problem response expanded, and at a problem's doc_url.
    failures = []
    for width in WIDTHS:
        axe_page.set_viewport_size({"width": width, "height": 900})
        axe_page.goto("/docs#tag/quota-exceeded")  # where a 429's doc_url lands
        axe_page.locator("h1").first.wait_for()
        axe_page.wait_for_load_state("networkidle")
        failures += [f"/docs#tag/quota-exceeded at {width}px: {v}" for v in violations(axe_page)]
        if width == WIDTHS[0]:  # a response opened (Redoc renders more; once is enough)
            axe_page.locator("#operation\\/foods_list button", has_text="400").first.click()
            axe_page.wait_for_timeout(300)
            failures += [f"/docs (a 400 open) at {width}px: {v}" for v in violations(axe_page)]
    assert not failures, "\n".join(failures)
    # The mended page keeps what it mended: each problem kind still links from the
    # Errors table, and a response's kinds read as text inside its toggle.
    assert axe_page.locator(".redoc-markdown a[href='#tag/quota-exceeded']").count() >= 1
    assert axe_page.locator("button a[href]").count() == 0
