"""One sign-in limit for every sign-in path (issue 11.2): the dashboard, the admin and
the password-reset and sign-up requests; 10 wrong passwords per (address, client) per
15 minutes, a per-address ceiling, X-Forwarded-For only behind configured proxies."""

from __future__ import annotations

import threading

import pytest
from django.core import mail
from django.db import connection
from django.test import Client

from accounts.models import SignInAttempt
from tests.dashboard.conftest import PASSWORD
from tests.support.signin import LIMIT, REFUSED, admin, dashboard, fail

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(verified):
    verified.owner.is_staff = True
    verified.owner.save()
    return verified.owner


def test_the_eleventh_attempt_is_refused_even_with_the_right_password(client, verified, clock):
    fail(LIMIT, verified.owner.email)
    response = dashboard(client, verified.owner.email)
    assert response.status_code == 429
    assert REFUSED in response.content.decode()
    assert response["Retry-After"] == str(15 * 60)
    assert "_auth_user_id" not in client.session


def test_ten_failures_are_allowed_and_the_right_password_then_signs_in(client, verified):
    fail(LIMIT - 1, verified.owner.email)
    assert dashboard(client, verified.owner.email).status_code == 302


@pytest.mark.parametrize(("first", "then"), [(dashboard, admin), (admin, dashboard)])
def test_the_dashboard_and_the_admin_share_one_count(staff, first, then):
    fail(LIMIT // 2, staff.email, sign_in=first)
    fail(LIMIT - LIMIT // 2, staff.email, sign_in=then)
    for sign_in in (dashboard, admin):
        client = Client()
        response = sign_in(client, staff.email)
        assert response.status_code == 429
        assert "_auth_user_id" not in client.session


def test_the_admin_refuses_a_user_the_dashboard_has_locked(client, staff):
    fail(LIMIT, staff.email)
    response = admin(client, staff.email.upper())
    assert response.status_code == 429 and REFUSED in response.content.decode()


def test_the_limit_lifts_as_the_failures_age_out(client, verified, clock):
    fail(LIMIT, verified.owner.email)
    clock.shift(15 * 60 - 60)
    refused = dashboard(client, verified.owner.email)
    assert "Wait 1 minute and" in refused.content.decode()
    clock.shift(61)
    assert dashboard(client, verified.owner.email).status_code == 302


def test_a_good_sign_in_forgets_earlier_failures(verified, clock):
    fail(LIMIT - 1, verified.owner.email)
    assert dashboard(Client(), verified.owner.email).status_code == 302
    fail(LIMIT - 1, verified.owner.email)
    assert dashboard(Client(), verified.owner.email).status_code == 302


def test_an_attacker_elsewhere_does_not_lock_the_owner_out(verified):
    fail(LIMIT + 5, verified.owner.email, REMOTE_ADDR="203.0.113.9")
    assert dashboard(Client(), verified.owner.email, REMOTE_ADDR="198.51.100.7").status_code == 302


def test_guessing_from_many_addresses_meets_the_per_account_ceiling(verified, settings):
    settings.SIGNIN_ACCOUNT_CEILING = 25
    for n in range(5):
        fail(5, verified.owner.email, REMOTE_ADDR=f"203.0.113.{n}")
    response = dashboard(Client(), verified.owner.email, REMOTE_ADDR="198.51.100.7")
    assert response.status_code == 429


def test_unknown_addresses_are_limited_the_same_way(client, db):
    fail(LIMIT, "nobody@example.com")
    response = dashboard(client, "nobody@example.com")
    assert response.status_code == 429 and REFUSED in response.content.decode()


def test_x_forwarded_for_is_ignored_without_a_trusted_proxy(client, verified):
    for n in range(LIMIT):
        dashboard(Client(), verified.owner.email, "wrong", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
    assert (
        dashboard(client, verified.owner.email, HTTP_X_FORWARDED_FOR="10.9.9.9").status_code == 429
    )


def test_behind_one_proxy_the_address_it_appended_counts(client, verified, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.TRUSTED_PROXIES = ["127.0.0.1"]  # the test client's REMOTE_ADDR
    fail(LIMIT, verified.owner.email, HTTP_X_FORWARDED_FOR="192.0.2.1")
    spoofed = "198.51.100.1, 192.0.2.1"  # a claimed address before the proxy's own
    assert dashboard(client, verified.owner.email, HTTP_X_FORWARDED_FOR=spoofed).status_code == 429
    other = dashboard(Client(), verified.owner.email, HTTP_X_FORWARDED_FOR="192.0.2.2")
    assert other.status_code == 302


def test_no_address_is_stored_in_clear(verified):
    fail(3, verified.owner.email)
    assert SignInAttempt.objects.count() == 3
    assert not SignInAttempt.objects.filter(subject__contains="@").exists()


def test_password_reset_requests_are_limited_too(client, verified):
    for _ in range(LIMIT):
        assert client.post("/password-reset/", {"email": verified.owner.email}).status_code == 302
    response = client.post("/password-reset/", {"email": verified.owner.email})
    assert response.status_code == 429
    assert "Too many password-reset requests" in response.content.decode()
    assert len(mail.outbox) == LIMIT


@pytest.mark.django_db(transaction=True)
def test_parallel_guesses_cannot_pass_the_limit(verified):
    """Counted before the password is checked, so 30 simultaneous guesses get at most
    10 password checks: the rest are refused."""
    statuses: list[int] = []

    def guess() -> None:
        statuses.append(dashboard(Client(), verified.owner.email, "wrong").status_code)
        connection.close()

    threads = [threading.Thread(target=guess) for _ in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses.count(200) <= LIMIT
    assert statuses.count(429) >= 30 - LIMIT


def post_login(base: str, email: str, password: str) -> int:
    """One sign-in through a real server, as a browser does it: the form's CSRF token
    and cookie first. Returns the status (redirects are not followed)."""
    import http.cookiejar
    import re
    import urllib.error
    import urllib.parse
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            return None

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
    page = opener.open(f"{base}/login/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    data = urllib.parse.urlencode(
        {"username": email, "password": password, "csrfmiddlewaretoken": token}
    ).encode()
    try:
        return opener.open(f"{base}/login/", data=data, timeout=10).status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.server
@pytest.mark.django_db(transaction=True)
def test_the_limit_holds_across_worker_processes(verified):
    from tests.support.servers import gunicorn

    with gunicorn(workers=2) as base:
        wrong = [post_login(base, verified.owner.email, "wrong") for _ in range(LIMIT)]
        assert wrong == [200] * LIMIT
        right = [post_login(base, verified.owner.email, PASSWORD) for _ in range(4)]
        assert right == [429] * 4
