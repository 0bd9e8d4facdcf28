"""The dashboard of an account that has used the service for a day (issue 29.1), in
Chromium at 390, 1280 and 1440 px: five keys (one rotated, one revoked), 100-character
labels with and without spaces, a long e-mail address, the day's quota spent, and every
outcome (admitted, quota 429, burst 429, failed) in the history.

Screenshots (``BROWSER_SCREENSHOTS=1``): ``test-artifacts/browser/lived-in-<page>-<width>.png``.
Checked on every
page: no sideways scroll of the page, no header on two rows; on the keys page every
action of every row lies inside the card."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from accounts.models import Account
from core.calendar import floor_hour
from tests.factories import FoodFactory
from tests.support.lived_in import lived_in_account

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (390, 1280, 1440)
ROW_ACTIONS = ("Usage", "Rename", "Rotate", "Revoke")


def _sign_in(page, live_server, account: Account) -> None:
    client = Client()
    client.force_login(account.owner)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
    )


def _inside(inner: dict, outer: dict) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
    )


def _check(page, shot, name: str, width: int) -> None:
    shot(page, f"lived-in-{name}-{width}")
    scroll, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll <= viewport, f"{name} at {width}px is {scroll}px wide"
    if width > 640:  # phones put the navigation on a row of its own, by design
        header = page.locator(".site-header__inner").bounding_box()
        assert header["height"] < 70, f"{name} at {width}px: header {header['height']}px tall"


def test_every_page_of_a_lived_in_account_fits(page, live_server, shot):
    account, keys = lived_in_account()
    _sign_in(page, live_server, account)
    # Every signed-in page (rotated, revoked and expiring keys, 100-character labels, a
    # long e-mail, a spent quota): no sideways scroll, the header one row on a desktop,
    # no template syntax printed (issue 40.1), every key's actions inside its card.
    food = FoodFactory(name="Butter, salted", nutrients={"208": 717.0, "204": 81.11},
                       portions=[{"description": "1 tbsp", "gram_weight": 14.2}])  # fmt: skip
    pages = {
        "overview": "/",
        "keys": "/keys/",
        "usage": "/usage/",
        "key-usage": f"/usage/keys/{keys[0].pk}/",
        "key-usage-rotated": f"/usage/keys/{keys[1].pk}/",
        "key-usage-unused": f"/usage/keys/{keys[4].pk}/",
        "plan": "/plan/",
        "plan-change": "/plan/change/?tier=sous_chef",
        "market": "/market/",
        "activity": "/activity/",
        "playground": "/playground/",
        "food": f"/foods/{food.public_id}/",
        "key-rotate": f"/keys/{keys[0].pk}/rotate/",
        "key-addresses": f"/keys/{keys[1].pk}/addresses/",
        "usage-30d": "/usage/?range=30d",
    }
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for name, path in pages.items():
            page.goto(path)
            _check(page, shot, name, width)
            text = page.locator("body").inner_text()
            assert not [t for t in ("{#", "#}", "{%", "%}") if t in text], (name, width)
        page.goto("/keys/")
        card = page.locator("section.card", has=page.locator("#keys-heading")).bounding_box()
        for key in keys:
            row = page.locator(f"#key-{key.pk}")
            actions = ROW_ACTIONS if key.revoked_at is None else ROW_ACTIONS[:2]
            for action in actions:
                box = row.get_by_role("link", name=action).bounding_box()
                assert box is not None and _inside(box, card), (key.label, action, width)
            if key.revoked_at is not None:
                assert row.get_by_role("link", name="Revoke").count() == 0
        wrap = page.locator(".keys-table").locator("xpath=..")  # nothing cut by its scroller
        assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth"), ("keys table", width)
        label = page.locator(f"#key-{keys[0].pk} .key-label").bounding_box()
        if width > 640:  # the long label is given room, not squeezed into a column
            assert label["height"] < 100, f"label is {label['height']}px tall at {width}px"
        page.goto("/usage/")
        page.get_by_text("Show the numbers").first.click()
        _check(page, shot, "usage-numbers", width)


def test_a_spent_quota_says_so_and_offers_an_upgrade(page, live_server, shot):
    account, _ = lived_in_account()
    _sign_in(page, live_server, account)
    for path in ("/", "/usage/"):
        page.goto(path)
        banner = page.locator("#quota-banner")
        text = banner.inner_text()
        assert "used all 250 requests" in text, text
        assert "429" in text
        upgrade = banner.get_by_role("link", name="Upgrade")
        assert upgrade.get_attribute("href") == "/plan/#plans"  # the plans themselves
        # The time allowance frees up names its day, so tomorrow's never reads as past.
        first = floor_hour(timezone.now()) + dt.timedelta(hours=1)
        expected = f"free up at {first:%H:%M} on {first.day} {first:%b}"
        assert expected in page.locator(".usage-line").first.inner_text()
        assert expected in text


def test_the_usage_chart_opens_with_its_axis_in_view_on_a_phone(page, live_server, shot):
    account, _ = lived_in_account()
    _sign_in(page, live_server, account)
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto("/usage/")
    scroller = page.locator(".chart-scroll").first
    assert scroller.evaluate("e => e.scrollLeft") == 0
    assert scroller.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    # Issue 40.4: a readable height (not 300 x 92 px), every tick inside the drawing and
    # in the stylesheet's 12 px, the same shape as on a desktop (not stretched).
    chart = page.locator("svg.chart").first
    box = chart.bounding_box()
    assert box["height"] >= 190, box
    texts = chart.locator("text").all()
    assert len(texts) > 5
    for text in texts:
        t = text.bounding_box()
        assert t["y"] >= box["y"] - 0.5 and t["y"] + t["height"] <= box["y"] + box["height"] + 0.5
        assert t["x"] >= box["x"] - 0.5, text.inner_html()
        assert 11 <= t["height"] <= 20, (text.inner_html(), t)
    plot = chart.locator(".grid-line").first.bounding_box()
    assert plot["height"] <= 2  # a 1 px line stays a line
    shot(page, "lived-in-usage-chart-390")
    page.set_viewport_size({"width": 1280, "height": 900})  # back to a desktop: as drawn
    assert 300 < chart.bounding_box()["height"] < 400
    assert chart.get_attribute("preserveAspectRatio") == "xMidYMid meet"


def test_bars_tell_their_numbers_on_hover_and_keyboard_focus(page, live_server, shot):
    account, _ = lived_in_account()
    _sign_in(page, live_server, account)
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto("/usage/")
    value = page.locator("#chart-hourly-value")
    bars = page.locator("#chart-hourly-value").locator("xpath=..").locator(".stack")
    assert bars.count() == 24
    assert [bars.nth(i).get_attribute("tabindex") for i in (0, 23)] == ["-1", "0"]
    bars.nth(23).focus()  # the current hour, the chart's one tab stop
    assert "250 requests" not in value.inner_text()
    latest = value.inner_text()
    assert "40 quota 429" in latest and "3 burst 429" in latest, latest
    page.keyboard.press("ArrowLeft")
    assert "10 requests (10 admitted)" in value.inner_text()
    assert bars.nth(22).get_attribute("tabindex") == "0"
    page.keyboard.press("Home")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')").startswith(
        bars.nth(0).get_attribute("aria-label")[:6]
    )
    bars.nth(16).hover()
    assert "1 failed (5xx)" in value.inner_text()  # 7 hours ago: the one failure
    shot(page, "lived-in-usage-focus-390")
    for toggle in page.locator("summary").all():  # at least 24 px to tap (WCAG 2.5.8)
        assert toggle.bounding_box()["height"] >= 24
    page.goto("/usage/?range=7d")
    assert page.locator("svg[aria-labelledby^='chart-daily'] .stack").count() == 7
    assert page.get_by_role("link", name="7 d").get_attribute("aria-current") == "page"


def test_snippets_copy_and_an_unused_key_says_it_has_no_requests(page, live_server, shot):
    account, keys = lived_in_account()
    _sign_in(page, live_server, account)
    page.goto("/")
    assert page.get_by_role("heading", name="Calling the API").is_visible()  # all done
    snippet = page.locator("#first-call")
    assert snippet.get_attribute("tabindex") == "0"
    page.get_by_role("button", name="Copy the code").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == snippet.inner_text() and "X-API-Key" in copied
    page.goto(f"/usage/keys/{keys[4].pk}/")
    assert "No requests yet: this key has never been used." in page.inner_text("main")


def test_upgrade_opens_the_plans_in_view_at_every_width(page, live_server):
    # issue 40.5: the plans sat below two alert cards, ~1,150 px down at 1280
    account, _ = lived_in_account()
    _sign_in(page, live_server, account)
    for width in (390, 1280, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto("/")
        page.locator("#quota-banner").get_by_role("link", name="Upgrade").click()
        page.wait_for_url("**/plan/#plans")
        top = page.locator("#plans").evaluate("e => e.getBoundingClientRect().top")
        assert -1 <= top < 900, (width, top)  # scrolled to it (sub-pixel)


def test_the_expiry_date_shows_only_for_a_date_and_escape_cancels_a_confirm_page(page, live_server):
    # issue 40.8: the date field showed and took tab stops with "Never"; confirm pages
    # started focus at the top and Escape did nothing
    account, keys = lived_in_account()
    _sign_in(page, live_server, account)
    page.goto("/keys/")
    date = page.locator("#id_expires_on")
    assert not date.is_visible()
    page.select_option("#id_expires", "date")
    assert date.is_visible()
    page.select_option("#id_expires", "never")
    assert not date.is_visible()
    active = next(key for key in keys if key.revoked_at is None and key.expires_at is None)
    page.goto(f"/keys/{active.pk}/revoke/")
    assert page.evaluate("document.activeElement.tagName") == "H1"
    page.keyboard.press("Escape")
    page.wait_for_url("**/keys/")
    active.refresh_from_db()
    assert active.revoked_at is None  # cancelled, not revoked


def test_answers_by_endpoint_and_the_log_read_at_every_width(page, live_server, shot):
    # Issue 40.3: the usage breakdown and a full recent-requests log of the lived-in
    # account, at 390/1280/1440 px: in view, a phone's endpoint card lists only its
    # non-zero answers, and the log's 100 rows keep their paths inside the card.
    account, keys = lived_in_account()
    _sign_in(page, live_server, account)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto("/usage/")
        table = page.locator(".outcome-table")
        assert table.locator("tbody tr").count() == 2
        assert "401 unauthorized: 12" in table.inner_text()
        assert "GET /v1/foods/{public_id}" in table.inner_text()  # as sent, not upper case
        page.goto(f"/usage/keys/{keys[0].pk}/")
        _check(page, shot, "key-usage-log", width)
        rows = page.locator(".recent-table tbody tr")
        assert rows.count() == 100
        card = page.locator("#recent").bounding_box()
        for cell in page.locator(".recent-table .request-cell code").all()[:10]:
            assert _inside(cell.bounding_box(), card), width
        zero = page.locator(".outcome-table td.zero").first
        assert zero.is_visible() == (width > 640)


def test_on_a_phone_the_keys_come_first_the_address_shows_and_copy_covers_nothing(
    page, live_server, shot
):
    # Issue 40.8: the first key was ~1,030 px down under the create form, the header hid
    # the address, and the snippet's Copy button floated over its text.
    account, keys = lived_in_account()
    _sign_in(page, live_server, account)
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto("/keys/")
    first = page.locator(f"#key-{keys[0].pk}").bounding_box()
    assert first["y"] < 600, first
    address = page.locator(".user-menu span")
    assert address.is_visible() and address.get_attribute("title") == account.owner.email
    box = address.bounding_box()
    assert box["width"] > 60 and box["x"] + box["width"] <= 390
    page.get_by_role("link", name="Create a key").click()  # the form is one tap away
    page.get_by_label("Label").fill("phone")
    page.get_by_role("button", name="Create key").click()
    page.locator("#try-it").wait_for()
    shot(page, "lived-in-secret-390")
    snippet = page.locator("#try-it").bounding_box()
    copy = page.get_by_role("button", name="Copy the code").bounding_box()
    assert copy["y"] >= snippet["y"] + snippet["height"], (copy, snippet)
