"""No dead ends (issue 29.1): every error page leads somewhere that works, /docs leads
back, an invalid reset link's title agrees with its heading, a label's limit is said
and a longer label refused (never cut), and a spent or nearly spent quota is explained
with an Upgrade button."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client
from django.utils import timezone

from accounts.tiers import TierLimits
from core.calendar import floor_hour
from metering.models import KeyUsageHour
from tests.support.signin import LIMIT, dashboard, fail

pytestmark = pytest.mark.django_db


def hrefs(page: str) -> set[str]:
    return set(re.findall(r'href="([^"#]+)"', page))


def test_signed_out_error_pages_offer_sign_in_sign_up_and_the_reference(client):
    page = client.get("/no-such-page/").content.decode()
    assert {"/login/", "/signup/", "/docs"} <= hrefs(page)


TEMPLATE_SYNTAX = ("{#", "#}", "{%", "%}", "{{", "}}")


def test_no_error_page_prints_template_syntax(client, owner_client, verified, clock):
    # Django's {# #} is one line only: one over two lines printed itself (issue 40.1)
    pages = [client.get("/no-such-page/"), owner_client.get("/no-such-page/")]
    fail(LIMIT, verified.owner.email)
    pages.append(dashboard(client, verified.owner.email))  # the sign-in 429
    for response in pages:
        page = response.content.decode()
        assert response.status_code in (404, 429)
        assert not [token for token in TEMPLATE_SYNTAX if token in page], page


def test_no_template_holds_a_comment_over_several_lines():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    templates = [
        path
        for path in root.rglob("*.html")
        if ".venv" not in path.parts and "node_modules" not in path.parts
    ]
    assert templates
    broken = [
        f"{path.relative_to(root)}:{number}"
        for path in templates
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "{#" in line and "#}" not in line.split("{#", 1)[1]
    ]
    assert not broken


def test_signed_in_error_pages_lead_to_the_dashboard(owner_client):
    page = owner_client.get("/no-such-page/").content.decode()
    assert "Go to the dashboard" in page and "/signup/" not in hrefs(page)


def test_the_sign_in_429_offers_a_password_reset_not_the_blocked_sign_in(client, verified, clock):
    fail(LIMIT, verified.owner.email)
    response = dashboard(client, verified.owner.email)
    assert response.status_code == 429
    page = response.content.decode()
    main = page[page.index("<main") :]
    assert "/password-reset/" in hrefs(main) and "/login/" not in hrefs(main)


def test_docs_lead_back_to_the_dashboard_or_to_sign_up(client, owner_client):
    assert {"/signup/", "/login/"} <= hrefs(client.get("/docs").content.decode())
    assert "Back to the dashboard" in owner_client.get("/docs").content.decode()


def test_an_invalid_reset_links_title_agrees_with_its_heading(client):
    page = client.get("/password-reset/MQ/set-password/", follow=True).content.decode()
    assert "<title>This link does not work" in page
    assert "<h1>This link does not work</h1>" in page


def test_the_label_limit_is_said_and_a_longer_label_refused(owner_client):
    page = owner_client.get("/keys/").content.decode()
    label_input = re.search(r'<input[^>]*name="label"[^>]*>', page).group(0)
    assert "maxlength" not in label_input  # the browser would cut a paste silently
    assert "Up to 100 characters." in page
    token = re.search(r'name="once" value="([^"]+)"', page).group(1)
    response = owner_client.post("/keys/new/", {"label": "x" * 120, "once": token})
    assert "at most 100 characters (it has 120)" in response.content.decode()
    assert 'value="' + "x" * 120 + '"' in response.content.decode()  # kept to fix


def spend(account, n: int) -> None:
    from keys.services import key_create

    key, _ = key_create(account=account, label="a")
    KeyUsageHour.objects.create(key=key, account=account, hour=floor_hour(timezone.now()), count=n)


def small_quota_client(used: int) -> Client:
    """Signed in to a fresh account of 100 requests a rolling day that used ``used``
    (a fresh account each: the meter, in Redis too, is seeded from its history)."""
    from accounts.services import account_set_tier
    from tests.factories import AccountFactory

    account = AccountFactory(owner__email_verified_at=timezone.now(), market="US")
    account_set_tier(
        account=account,
        tier="executive_chef",
        custom=TierLimits(quota=100, window="day", rate=None, burst=None),
    )
    spend(account, used)
    client = Client()
    client.force_login(account.owner)
    return client


def test_a_nearly_spent_quota_warns_and_a_spent_one_explains_the_429s(db):
    page = small_quota_client(87).get("/usage/").content.decode()
    banner = re.search(
        r'<div class="alert[^"]*quota-banner".*?</div>\s*<a[^>]*>Upgrade', page, re.S
    )
    assert banner and "alert--warning" in banner.group(0) and "87%" in banner.group(0)
    assert "13 left" in banner.group(0)
    assert "quota-banner" not in small_quota_client(79).get("/").content.decode()
    page = small_quota_client(100).get("/").content.decode()
    assert "You have used all 100 requests" in page and "alert--error" in page
    assert 'href="/plan/#plans">Upgrade' in page
    tomorrow = floor_hour(timezone.now()) + dt.timedelta(days=1)
    assert f"{tomorrow:%H:%M} on {tomorrow.day} {tomorrow:%b}" in page
