"""/docs (issue 6, point 2): Redoc from the app's own assets, under a CSP that allows
nothing from another origin; every problem's ``doc_url`` opens its section in a real
browser with the network cut off."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from django.test import Client

from core.problems import all_problem_types
from foodservice.openapi.docs import REMOTE_LOGO
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS


@pytest.mark.django_db
def test_docs_page_loads_only_same_origin_assets_under_its_own_csp() -> None:
    response = Client().get("/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert not re.search(r"(src|href)=\"(https?:)?//", html), "a remote asset is linked"
    csp = response["Content-Security-Policy"]
    assert "script-src 'self';" in csp and "default-src 'self'" in csp
    assert "https:" not in csp and "*" not in csp


@pytest.mark.django_db
def test_redoc_bundle_is_served_without_its_remote_logo_and_revalidates() -> None:
    client = Client()
    response = client.get("/docs/redoc.js")
    assert response.status_code == 200
    body = response.content.decode()
    assert "Redoc" in body and REMOTE_LOGO not in body
    again = client.get("/docs/redoc.js", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304


@pytest.fixture
def offline_page(live_server, monkeypatch) -> Iterator[object]:
    """A Chromium page that can reach the live server and nothing else; requests to
    other origins are aborted and recorded in ``page.blocked``."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    origin = live_server.url
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(base_url=origin, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.blocked, page.console_errors = [], []

        def route(request_route, request) -> None:
            if request.url.startswith((origin, "data:", "blob:")):
                request_route.continue_()
            else:
                page.blocked.append(request.url)
                request_route.abort()

        page.route("**/*", route)
        page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
        yield page
        context.close()
        browser.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_every_doc_url_opens_its_section_in_a_browser_without_network(offline_page) -> None:
    page = offline_page
    kinds = [cls.kind for cls in all_problem_types()]
    page.goto("/docs#" + urlsplit(all_problem_types()[0].doc_url()).fragment)
    page.wait_for_selector('[id="tag/unauthorized"]', state="attached")
    for kind in kinds:
        assert page.locator(f'[id="tag/{kind}"]').count() == 1, kind
    # Opening a doc_url scrolls its section to the top of the window.
    for cls in (
        all_problem_types()[-1],
        next(c for c in all_problem_types() if c.status_code == 429),
    ):
        page.goto("/docs#" + urlsplit(cls.doc_url()).fragment)
        section = page.locator(f'[id="tag/{cls.kind}"]')
        section.wait_for()
        page.wait_for_function(
            "id => Math.abs(document.getElementById(id).getBoundingClientRect().top) < 80",
            arg=f"tag/{cls.kind}",
        )
        assert cls.type_uri() in section.inner_text()
    # The error reference links to the tier table by its section anchor.
    assert page.locator('[id="section/Tiers-and-limits"]').count() == 1
    assert page.blocked == []
    assert page.console_errors == []
