"""Users made without an account (``createsuperuser``, the admin) get one on first need
(issue 11.5): every dashboard page answers, never a 500."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Account, User

pytestmark = pytest.mark.django_db

PAGES = ("/", "/keys/", "/plan/", "/market/", "/usage/", "/usage/usage.csv")


@pytest.fixture
def staff_client(db: None) -> tuple[Client, User]:
    user = User.objects.create_superuser(email="root@example.com", password="x" * 12)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client, user


@pytest.mark.parametrize("path", PAGES)
def test_every_dashboard_page_answers_a_user_without_an_account(staff_client, path):
    client, user = staff_client
    assert not Account.objects.filter(owner=user).exists()
    assert client.get(path).status_code == 200
    account = Account.objects.get(owner=user)
    assert (account.tier, account.market) == ("taster", "")


def test_the_account_is_created_once(staff_client):
    client, user = staff_client
    for path in PAGES:
        client.get(path)
    assert Account.objects.filter(owner=user).count() == 1
