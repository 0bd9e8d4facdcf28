"""Every dashboard page at phone and desktop widths, in Chromium (issue 15), at 390,
1280 and 1440 px (screenshots with ``BROWSER_SCREENSHOTS=1``:
``test-artifacts/browser/layout-<page>-<width>.png``); no page
is wider than the screen, even with a 100-character label that has no spaces; every
key's actions stay in view; the navigation shows every item; charts stay legible."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from accounts.models import Account
from core.calendar import floor_hour
from keys.models import ApiKey
from keys.services import key_create
from metering.models import KeyUsageHour
from tests.factories import AccountFactory, FoodFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (390, 1280, 1440)
LONG_DOTTED = "ingest-worker.production.eu-west-1.k8s.internal.example.com"
UNBROKEN = "svc" + "0123456789abcdefghijklmnopqrstuvwxyz" * 3  # no spaces, no dots
UNBROKEN = UNBROKEN[:100]
NAV = ("Overview", "API keys", "Usage", "Plan & billing", "Market", "Activity", "Playground")


def _account_with_five_keys() -> tuple[Account, list[ApiKey]]:
    """A verified Taster account in the US market holding the most keys it may, with
    long labels and a day of usage spread over several hours."""
    account = AccountFactory(owner__email_verified_at=timezone.now(), market="US")
    labels = [LONG_DOTTED, UNBROKEN, "laptop", "staging", "ci"]
    keys = [key_create(account=account, label=label)[0] for label in labels]
    now = floor_hour(timezone.now())
    for hours_ago, n in ((20, 12), (9, 30), (2, 8), (0, 5)):
        KeyUsageHour.objects.create(
            key=keys[hours_ago % 2],
            account=account,
            hour=now - dt.timedelta(hours=hours_ago),
            count=n,
        )
    ApiKey.objects.filter(pk=keys[0].pk).update(last_used_at=timezone.now())
    return account, keys


def _sign_in(page, live_server, account: Account) -> None:
    client = Client()
    client.force_login(account.owner)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
    )


def _overflow(page) -> tuple[int, int]:
    """(document scroll width, viewport width)."""
    return page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")


def _check_page(page, shot, name: str, width: int) -> None:
    shot(page, f"layout-{name}-{width}")
    scroll, viewport = _overflow(page)
    assert scroll <= viewport, f"{name} at {width}px is {scroll}px wide"


def _in_view(page, locator) -> bool:
    box = locator.bounding_box()
    viewport = page.viewport_size
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]


def test_every_signed_in_page_fits_every_width(page, live_server, shot):
    account, keys = _account_with_five_keys()
    _sign_in(page, live_server, account)
    key = keys[1]  # the 100-character label
    pages = {
        "overview": "/",
        "keys": "/keys/",
        "key-rotate": f"/keys/{key.pk}/rotate/",
        "key-revoke": f"/keys/{key.pk}/revoke/",
        "key-rename": f"/keys/{key.pk}/rename/",
        "usage": "/usage/",
        "key-usage": f"/usage/keys/{key.pk}/",
        "plan": "/plan/",
        "plan-change": "/plan/change/?tier=sous_chef",
        "market": "/market/",
        "activity": "/activity/",
        "playground": "/playground/",
    }
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for name, path in pages.items():
            page.goto(path)
            _check_page(page, shot, name, width)
        page.goto("/keys/")
        for link in NAV:  # the navigation shows every item
            assert _in_view(page, page.get_by_role("link", name=link, exact=True)), (link, width)
        wrap = page.locator(".table-wrap")  # nothing hidden in the table's own scroller
        assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth"), width
        page.goto("/activity/")  # the audit log names the long labels too
        wrap = page.locator(".table-wrap")
        assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth"), ("activity", width)
        page.goto("/keys/")
        for key in keys:  # every key's actions in view, whatever its label
            row = page.locator(f"#key-{key.pk}")
            for action in ("Usage", "Rename", "Rotate", "Revoke"):
                button = row.get_by_role("link", name=action)
                assert button.is_visible() and _in_view(page, button), (key.label, action, width)
            assert row.locator(".key-label").get_attribute("title") == key.label


def test_the_playground_shows_a_nutrition_label_at_every_width(page, live_server, shot):
    FoodFactory(name="Butter, salted", portions=[{"description": "1 tbsp", "gram_weight": 14.2}],
                nutrients={"208": 717.0, "204": 81.11, "606": 51.37, "307": 643.0})  # fmt: skip
    account, _ = _account_with_five_keys()
    _sign_in(page, live_server, account)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto("/playground/")
        page.get_by_label("Ingredients or meal").fill("4 tbsp butter")
        page.get_by_label("Servings (optional)").fill("2")
        page.get_by_role("button", name="Analyse").click()
        label = page.locator(".nutrition-label")
        label.wait_for()
        assert label.get_by_text("Nutrition Facts").is_visible()
        fat = label.locator(".nutrition-label__row--fat_g")
        assert fat.inner_text().lower().split() == ["total", "fat", "23g", "30%"], width
        assert _in_view(page, label), width
        _check_page(page, shot, "playground-answer", width)
        # The search half: a food found, its row in view, its page with its label.
        page.get_by_label("Food", exact=True).fill("butter")
        page.get_by_role("button", name="Search").click()
        found = page.locator(".found-table")
        found.wait_for()
        link = found.get_by_role("link", name="Butter, salted")
        assert _in_view(page, link), width
        assert "717 kcal" in found.inner_text()
        _check_page(page, shot, "playground-search", width)
        link.click()
        page.locator(".nutrition-label").wait_for()


def test_charts_stay_legible_on_a_phone(page, live_server, shot):
    account, _ = _account_with_five_keys()
    _sign_in(page, live_server, account)
    page.set_viewport_size({"width": 390, "height": 900})
    for path, chart in (("/usage/", "chart-hourly"), ("/usage/?range=30d", "chart-daily")):
        page.goto(path)
        svg = page.locator(f'svg[aria-labelledby^="{chart}"]')
        text_height = svg.locator("text").first.bounding_box()["height"]
        assert text_height >= 10, f"{chart} text is {text_height}px tall"
        scroller = svg.locator("xpath=..")
        assert _in_view(page, scroller)  # the chart fits the phone (issue 29)
        assert _overflow(page)[0] <= 390


def test_at_five_keys_create_is_disabled_with_one_message(page, live_server, shot):
    account, _ = _account_with_five_keys()
    _sign_in(page, live_server, account)
    page.goto("/keys/")
    assert page.get_by_role("button", name="Create key").is_disabled()
    message = page.locator("#create-blocked")
    assert "holds 5 of 5 keys" in message.inner_text()
    assert "revoke" in message.inner_text()
    assert page.locator(".alert").count() == 1


def test_signed_out_pages_fit_every_width(page, live_server, shot):
    AccountFactory(owner__email="kb@example.com")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for name, path in {
            "signin": "/login/",
            "signup": "/signup/",
            "signup-sent": "/signup/sent/",
            "password-reset": "/password-reset/",
            "not-found": "/no-such-page/",
        }.items():
            page.goto(path)
            _check_page(page, shot, name, width)


def test_after_a_failed_sign_in_focus_is_on_the_password(page, live_server, shot):
    AccountFactory(owner__email="kb@example.com")
    page.goto("/login/")
    page.get_by_label("E-mail address").fill("kb@example.com")
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state()
    assert page.evaluate("document.activeElement.id") == "id_password"
    assert page.input_value("#id_username") == "kb@example.com"
    shot(page, "signin-failed")
