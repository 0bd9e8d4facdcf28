"""The overview (issue 15.5): the market by its country name, and a Getting-started
checklist that includes choosing a market and ticks what is done."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from accounts.models import Account
from keys.models import ApiKey
from keys.services import key_create

pytestmark = pytest.mark.django_db


def steps(page: str) -> list[tuple[str, str]]:
    """(state, text) of each checklist step, "done" or "todo"."""
    checklist = re.search(r'<ol class="checklist">(.*?)</ol>', page, re.S).group(1)
    return [
        (state, re.sub(r"<[^>]+>", "", text).strip())
        for state, text in re.findall(r'<li class="(done|todo)">(.*?)</li>', checklist, re.S)
    ]


def test_a_new_account_has_everything_to_do(client, unverified):
    Account.objects.filter(pk=unverified.pk).update(market="")
    client.force_login(unverified.owner)
    page = client.get("/").content.decode()
    states = [state for state, _ in steps(page)]
    assert states == ["todo"] * 4
    texts = " ".join(text for _, text in steps(page))
    assert "Choose your market" in texts and "Create an API key" in texts
    assert "To do:" in page  # the state is said, not only drawn


def test_done_steps_are_ticked_and_the_market_is_named(owner_client, verified):
    key, _ = key_create(account=verified, label="a")
    page = owner_client.get("/").content.decode()
    assert [state for state, _ in steps(page)] == ["done", "done", "done", "todo"]
    assert "Your market is United States (US)." in page
    assert '<p class="stat__value">United States (US)</p>' in page
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=timezone.now())
    page = owner_client.get("/").content.decode()
    # Every step done: the checklist gives way to the snippet alone (issue 29).
    assert "checklist" not in page and "Getting started" not in page
    assert "Calling the API" in page and 'id="first-call"' in page
