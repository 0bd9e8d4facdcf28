"""The dashboard while Redis is down (issue 11.4): a real redis-server of the test's
own, killed; every page and form either works (signing in, reading pages) or answers
the 503 page that says to retry; never a 500, and nothing half-written. Runs on both
backends: the caches and the meter point at the throwaway Redis."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.core import mail
from django.test import Client

from accounts import tokens
from accounts.models import Account, User
from keys.models import ApiKey
from keys.services import key_create
from metering.backends import meter_reset
from tests.dashboard.conftest import PASSWORD
from tests.support.engines import ThrowawayRedis

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_down(settings) -> Iterator[None]:
    """Every Redis the service uses is a throwaway redis-server, started then killed."""
    redis = ThrowawayRedis()
    redis.start()
    options = {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2}
    cache = {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": redis.url, "OPTIONS": options}
    settings.CACHES = {"default": cache, "keys": {**cache, "TIMEOUT": 300}}
    settings.REDIS_URL = redis.url
    settings.METER_BACKEND = "redis"
    meter_reset()
    redis.stop()
    yield
    meter_reset()


@pytest.fixture
def browser(verified, redis_down) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(verified.owner)
    return client


def assert_works_or_asks_to_retry(response) -> None:
    assert response.status_code != 500
    if response.status_code == 503:
        assert response["Retry-After"]
        page = response.content.decode()
        assert "retry" in page.lower() and "Nothing was changed." in page
    else:
        assert response.status_code in (200, 302), response.status_code


def state(account: Account) -> tuple:
    account.refresh_from_db()
    keys = ApiKey.objects.filter(account=account).order_by("pk")
    return (
        account.tier,
        account.market,
        account.billing_anchor,
        list(keys.values_list("label", "secret_hash", "revoked_at")),
    )


def test_signing_in_works_without_redis(verified, redis_down):
    client = Client(raise_request_exception=False)
    response = client.post("/login/", {"username": verified.owner.email, "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/").status_code == 200


def test_wrong_passwords_are_still_limited_without_redis(verified, redis_down):
    client = Client(raise_request_exception=False)
    for _ in range(10):
        client.post("/login/", {"username": verified.owner.email, "password": "wrong"})
    response = client.post("/login/", {"username": verified.owner.email, "password": PASSWORD})
    assert response.status_code == 429


@pytest.fixture
def key(verified) -> ApiKey:
    return key_create(account=verified, label="before")[0]


def test_every_page_reads_without_redis(browser, verified, key):
    pages = [
        "/",
        "/keys/",
        "/plan/",
        "/plan/change/?tier=sous_chef",
        "/market/",
        "/usage/",
        "/usage/usage.csv",
        f"/usage/keys/{key.pk}/",
        f"/usage/keys/{key.pk}/usage.csv",
        f"/keys/{key.pk}/rotate/",
        f"/keys/{key.pk}/revoke/",
        f"/keys/{key.pk}/rename/",
    ]
    for path in pages:
        response = browser.get(path)
        assert response.status_code == 200, (path, response.status_code)


def once_token(browser: Client, page: str) -> str:
    return re.search(r'name="once" value="([^"]+)"', browser.get(page).content.decode()).group(1)


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/market/", {"market": "US"}),
        ("/plan/change/", {"tier": "sous_chef"}),
        ("/keys/new/", {"label": "during the outage", "once": "/keys/"}),
        ("/keys/{key}/rotate/", {"once": "/keys/{key}/rotate/"}),
        ("/keys/{key}/revoke/", {}),
        ("/keys/{key}/rename/", {"label": "renamed"}),
        ("/verify-email/resend/", {}),
        ("/logout/", {}),
    ],
)
def test_every_form_works_or_asks_to_retry_and_changes_nothing(browser, verified, key, path, data):
    Account.objects.filter(pk=verified.pk).update(market="")
    if "once" in data:  # the one-time token of the form, as the page issued it
        data = {**data, "once": once_token(browser, data["once"].format(key=key.pk))}
    before = state(verified)
    response = browser.post(path.format(key=key.pk), data)
    assert_works_or_asks_to_retry(response)
    if response.status_code == 503:
        assert state(verified) == before
    if "once" in data:  # refused for the outage, not spent: the same form may retry
        assert response.status_code == 503
        assert data["once"] in browser.session["keys.once"]


def test_sign_up_verification_and_reset_work_or_ask_to_retry(redis_down, verified):
    client = Client(raise_request_exception=False)
    pw = "a long and unusual pass phrase"
    signup = client.post("/signup/", {"email": "new@example.com", "password1": pw, "password2": pw})
    assert_works_or_asks_to_retry(signup)
    reset = client.post("/password-reset/", {"email": verified.owner.email})
    assert_works_or_asks_to_retry(reset)
    user = verified.owner
    token = tokens.make_token(user_id=user.pk, email=user.email)
    assert_works_or_asks_to_retry(client.get(f"/verify-email/{token}/"))
    assert User.objects.filter(email="new@example.com").count() == (signup.status_code == 302)
    assert len(mail.outbox) >= 1
