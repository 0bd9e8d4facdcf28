"""Key expiry (issue 29.2): chosen at creation, refused once past like a revoked key (the
one opaque 401), an e-mail 7 days and 1 day before (switchable), the expiry audited.
Clock-controlled in this process; then with real gunicorn workers that cached the key
and whose own flusher runs the reminder check."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.audit.models import AuditAction, AuditEntry
from keys.expiry import key_expiry_check
from keys.models import ApiKey, KeyExpiryNotice
from keys.policies import expiry_stage
from keys.services import key_create, key_revoke
from metering.alerts.services import expiry_alerts_set_enabled
from metering.recorder import _flush
from tests.conftest import T0
from tests.factories import AccountFactory
from tests.support.servers import fetch, gunicorn

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def api_status(secret: str) -> int:
    return APIClient().get("/v1/market", headers={"X-API-Key": secret}).status_code


@pytest.fixture
def owner(db):
    return AccountFactory(market="US", owner__email="kb@example.com", owner__email_verified_at=T0)


@pytest.mark.parametrize(
    ("left", "stage"),
    [(DAY * 8, None), (DAY * 7, 7), (DAY * 2, 7), (DAY, 1), (timedelta(seconds=1), 1),
     (timedelta(0), 0), (-DAY, 0)],
)  # fmt: skip
def test_the_stage_due_is_the_latest_reached(left, stage):
    assert expiry_stage(T0 + left, T0) == stage


def test_an_expiring_key_mails_7_days_and_1_day_before_then_is_refused_and_audited(owner, clock):
    key, secret = key_create(account=owner, label="ci", expires_at=T0 + 30 * DAY)
    assert api_status(secret) == 200
    assert key_expiry_check() == []
    clock.move_to(T0 + 23 * DAY)  # exactly 7 days left
    assert [n.stage for n in key_expiry_check()] == [7]
    assert key_expiry_check() == []  # idempotent
    (message,) = mail.outbox
    assert message.to == ["kb@example.com"] and "“ci” expires in 7 days" in message.subject
    assert "create a new key" in message.body and secret not in message.body
    assert key.hint not in message.body
    clock.move_to(T0 + 29 * DAY + timedelta(hours=1))
    assert [n.stage for n in key_expiry_check()] == [1]
    assert "expires tomorrow" in mail.outbox[1].subject
    assert api_status(secret) == 200  # still valid a second before
    clock.move_to(T0 + 30 * DAY - timedelta(seconds=1))
    assert api_status(secret) == 200
    clock.move_to(T0 + 30 * DAY)
    assert api_status(secret) == 401
    assert APIClient().get("/v1/market", headers={"X-API-Key": secret}).json()["type"] == (
        "/problems/unauthorized"
    )
    assert [n.stage for n in key_expiry_check()] == [0]
    assert len(mail.outbox) == 2  # the expiry itself is audited, not mailed
    entry = AuditEntry.objects.get(action=AuditAction.KEY_EXPIRE)
    assert entry.account_id == owner.pk and entry.summary == f"Key {key.pk} “ci” expired"
    created = AuditEntry.objects.get(action=AuditAction.KEY_CREATE)
    assert "expiring 9 Apr 2026, 14:25 UTC" in created.summary  # as the log prints times


def test_reminders_can_be_switched_off_but_the_expiry_is_still_audited(owner, clock):
    expiry_alerts_set_enabled(account=owner, enabled=False)
    key_create(account=owner, label="ci", expires_at=T0 + 3 * DAY)
    assert [n.stage for n in key_expiry_check()] == [7]
    clock.move_to(T0 + 3 * DAY)
    assert [n.stage for n in key_expiry_check()] == [0]
    assert mail.outbox == []
    assert AuditEntry.objects.filter(action=AuditAction.KEY_EXPIRE).count() == 1


def test_a_revoked_key_gets_no_reminder(owner, clock):
    key, _ = key_create(account=owner, label="ci", expires_at=T0 + 2 * DAY)
    key_revoke(key=key)
    assert key_expiry_check() == [] and mail.outbox == []


def test_a_failed_email_is_retried_by_the_next_check(owner, clock, settings):
    key_create(account=owner, label="ci", expires_at=T0 + 2 * DAY)
    settings.EMAIL_BACKEND = "tests.keys.test_expiry.FailingBackend"
    assert key_expiry_check() == []
    assert not KeyExpiryNotice.objects.exists()
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert [n.stage for n in key_expiry_check()] == [7]


class FailingBackend:
    def __init__(self, *args, **kwargs):
        pass

    def send_messages(self, messages):
        raise OSError("SMTP down")


def test_the_command_and_the_workers_flusher_run_the_check(owner, clock, monkeypatch):
    # The flusher closes stale connections first; the test's own must stay open.
    monkeypatch.setattr("metering.recorder.close_old_connections", lambda: None)
    key_create(account=owner, label="a", expires_at=T0 + 5 * DAY)
    key_create(account=owner, label="b", expires_at=T0 + 12 * DAY)
    _flush(sweep=True)  # what each worker's flusher does about once a minute
    assert KeyExpiryNotice.objects.count() == 1 and len(mail.outbox) == 1
    clock.move_to(T0 + 5 * DAY)
    call_command("send_key_expiry_notices")
    assert KeyExpiryNotice.objects.filter(stage=0).count() == 1
    assert KeyExpiryNotice.objects.filter(stage=7).count() == 2  # b's week has begun


def test_the_dashboard_creates_keys_with_each_expiry_choice(owner, clock):
    browser = Client()
    browser.force_login(owner.owner)

    def create(**fields: str) -> int:
        page = browser.get("/keys/").content.decode()
        token = page.split('name="once" value="')[1].split('"')[0]
        return browser.post("/keys/new/", {"label": "k", "once": token, **fields}).status_code

    assert create(expires="never") == 200
    assert create(expires="30") == 200
    assert create(expires="90") == 200
    assert create(expires="date", expires_on="2026-05-01") == 200
    expiries = list(ApiKey.objects.order_by("pk").values_list("expires_at", flat=True))
    assert expiries == [
        None,
        T0 + 30 * DAY,
        T0 + 90 * DAY,
        datetime(2026, 5, 1, tzinfo=UTC),
    ]
    page = browser.get("/keys/").content.decode()
    assert "1 May 2026" in page and "9 Apr 2026" in page and "8 Jun 2026" in page
    for bad in ({"expires_on": ""}, {"expires_on": "2026-03-10"}, {"expires_on": "2040-01-01"}):
        assert create(expires="date", **bad) == 200
    assert ApiKey.objects.count() == 4  # none of those made a key
    assert create(expires="forever") == 200 and ApiKey.objects.count() == 4


@pytest.mark.server
@pytest.mark.django_db(transaction=True)
def test_real_workers_refuse_a_key_they_cached_once_it_expires_and_send_reminders():
    account = AccountFactory(market="US", owner__email_verified_at=timezone.now())
    soon, _ = key_create(account=account, label="soon", expires_at=timezone.now() + 3 * DAY)
    with gunicorn(workers=2, METER_FLUSH_SECONDS="0.5") as base:
        # Made once the workers are up: their start (seconds on a busy machine) does
        # not eat into the key's 6 s.
        expires = timezone.now() + timedelta(seconds=6)
        _, secret = key_create(account=account, label="short", expires_at=expires)
        # Both workers serve (and cache) the key; their flushers start on metered reads.
        statuses = {fetch(f"{base}/v1/market", {"X-API-Key": secret})[0] for _ in range(8)}
        assert statuses == {200}
        for _ in range(8):
            fetch(f"{base}/v1/foods?q=apple", {"X-API-Key": secret})
        deadline = time.monotonic() + 10
        while not KeyExpiryNotice.objects.filter(key=soon, stage=7).exists():
            assert time.monotonic() < deadline, "no worker ran the reminder check"
            time.sleep(0.2)
        time.sleep(max(0.0, (expires - timezone.now()).total_seconds()) + 0.2)
        statuses = {fetch(f"{base}/v1/market", {"X-API-Key": secret})[0] for _ in range(8)}
        assert statuses == {401}
    assert KeyExpiryNotice.objects.filter(key=soon).count() == 1
