"""Quota alerts (issue 16.2) on the real meter (in-process, or Redis in the services
pass) under a controlled clock: 80 % and 100 %, once per threshold per window, hovering,
a new window, the owner's switch, the command, the flusher's check, a mail outage."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts.models import Account
from accounts.services import account_set_tier
from accounts.tiers import TierLimits
from keys.models import ApiKey
from keys.selectors import principal_build
from keys.services import key_create
from metering.alerts import periodic
from metering.alerts.models import QuotaAlert
from metering.alerts.services import alerts_set_enabled, quota_alerts_check
from metering.history import usage_flush
from metering.services import usage_consume
from tests.conftest import T0
from tests.factories import AccountFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_check_after_flush(settings):
    """Tests run the check themselves unless they test the flusher's own."""
    settings.QUOTA_ALERT_CHECK_SECONDS = 0
    settings.BASE_URL = "https://food.example.com"
    periodic.batcher.reset()
    yield
    periodic.batcher.reset()


def small(window: str) -> tuple[Account, ApiKey, str]:
    """A verified Executive Chef account with a quota of 10 per ``window``, unthrottled."""
    account = AccountFactory(owner__email_verified_at=T0)
    account_set_tier(
        account=account,
        tier="executive_chef",
        custom=TierLimits(quota=10, window=window, rate=None, burst=None),  # type: ignore[arg-type]
    )
    key, secret = key_create(account=account, label="production")
    return Account.objects.get(pk=account.pk), key, secret


def use(key: ApiKey, n: int) -> None:
    """``n`` admitted requests at the clock's now, counted by the real meter."""
    principal = principal_build(key=ApiKey.objects.select_related("account").get(pk=key.pk))
    for _ in range(n):
        assert usage_consume(principal=principal, now=timezone.now()).refused_by is None
    usage_flush()


def thresholds_mailed() -> list[str]:
    return [m.subject for m in mail.outbox]


def test_80_percent_sends_one_email_with_the_plan_link_and_no_secret(clock):
    account, key, secret = small("day")
    use(key, 7)
    assert quota_alerts_check() == []
    use(key, 1)
    (alert,) = quota_alerts_check()
    assert (alert.threshold, alert.used, alert.quota) == (80, 8, 10)
    (message,) = mail.outbox
    assert message.to == [account.owner.email]
    assert message.subject == "foodservice: 80% of your quota used"
    assert "used 8 of its 10 requests in the last 24 hours" in message.body
    assert "https://food.example.com/plan/" in message.body
    for text in (message.subject, message.body):
        assert "svc_sk_live_" not in text and secret not in text and key.hint not in text
    assert quota_alerts_check() == []  # idempotent
    assert len(mail.outbox) == 1


def test_100_percent_after_80_and_never_twice(clock):
    _, key, _ = small("day")
    use(key, 8)
    quota_alerts_check()
    use(key, 1)
    assert quota_alerts_check() == []  # 90 %: nothing new
    use(key, 1)
    (alert,) = quota_alerts_check()
    assert alert.threshold == 100
    assert quota_alerts_check() == []
    assert thresholds_mailed() == [
        "foodservice: 80% of your quota used",
        "foodservice: your quota is used up",
    ]
    assert "Requests are now refused with 429" in mail.outbox[1].body


def test_jumping_past_both_thresholds_sends_one_email_not_two(clock):
    _, key, _ = small("month")
    use(key, 10)
    (alert,) = quota_alerts_check()
    assert alert.threshold == 100
    assert sorted(QuotaAlert.objects.values_list("threshold", flat=True)) == [80, 100]
    assert quota_alerts_check() == [] and len(mail.outbox) == 1
    assert "in this billing month" in mail.outbox[0].body
    assert "renewal on 10 April 2026, 14:00 UTC" in mail.outbox[0].body


def test_hovering_on_a_rolling_day_sends_nothing_more_until_24_hours_have_passed(clock):
    _, key, _ = small("day")
    use(key, 4)  # 14:25, day 1: 40 %
    clock.move_to(T0.replace(hour=20))
    use(key, 4)  # 20:25: 80 %
    assert [a.threshold for a in quota_alerts_check()] == [80]
    # Day 2, 14:xx: day 1's 14:00 hour has aged out (40 %), new requests bring it back
    # to 80 %: the line crossed again within the alert's 24 hours, so no e-mail.
    clock.move_to(T0 + timedelta(days=1))
    assert quota_alerts_check() == []
    use(key, 4)
    assert quota_alerts_check() == []
    clock.move_to(T0.replace(hour=23) + timedelta(days=1))
    assert quota_alerts_check() == []
    # Day 2, 20:25: 24 hours after the alert's hour: a new window; still at 80 %.
    clock.move_to(T0.replace(hour=20) + timedelta(days=1))
    assert quota_alerts_check() == []  # day 1's 20:00 hour aged out: 40 %
    use(key, 4)
    assert [a.threshold for a in quota_alerts_check()] == [80]
    assert len(mail.outbox) == 2


def test_a_new_billing_period_re_arms_the_alerts(clock):
    _, key, _ = small("month")
    use(key, 8)
    assert [a.threshold for a in quota_alerts_check()] == [80]
    clock.move_to(T0 + timedelta(days=20))
    use(key, 1)
    assert quota_alerts_check() == []
    clock.move_to(datetime(2026, 4, 10, 14, 5, tzinfo=UTC))  # renewed at 14:00
    assert quota_alerts_check() == []  # the new period starts at 0
    use(key, 8)
    assert [a.threshold for a in quota_alerts_check()] == [80]
    starts = QuotaAlert.objects.order_by("sent_at").values_list("window_start", flat=True)
    assert list(starts) == [T0.replace(minute=0), datetime(2026, 4, 10, 14, tzinfo=UTC)]


def test_owner_who_switched_alerts_off_gets_none(clock):
    account, key, _ = small("day")
    alerts_set_enabled(account=account, enabled=False)
    use(key, 10)
    assert quota_alerts_check() == [] and mail.outbox == []
    alerts_set_enabled(account=account, enabled=True)
    assert [a.threshold for a in quota_alerts_check()] == [100]


def test_a_deactivated_owner_gets_none(clock):
    account, key, _ = small("day")
    use(key, 10)
    type(account.owner).objects.filter(pk=account.owner.pk).update(is_active=False)
    assert quota_alerts_check() == [] and mail.outbox == []


def test_the_switch_on_the_plan_page(clock):
    account, key, _ = small("day")
    client = Client(enforce_csrf_checks=True)
    client.force_login(account.owner)
    page = client.get("/plan/").content.decode()
    assert 'id="id_alerts_enabled" value="on" checked' in page
    csrf = client.cookies["csrftoken"].value
    assert client.post("/alerts/", {}).status_code == 403  # no CSRF token
    response = client.post("/alerts/", {"csrfmiddlewaretoken": csrf}, follow=True)
    assert response.redirect_chain[-1][0] == "/plan/"
    assert "Quota alerts are off." in response.content.decode()
    assert 'id="id_alerts_enabled" value="on">' in response.content.decode()  # unchecked
    use(key, 10)
    assert quota_alerts_check() == []
    client.post("/alerts/", {"csrfmiddlewaretoken": csrf, "enabled": "on"})
    assert [a.threshold for a in quota_alerts_check()] == [100]


def test_the_switch_is_post_only_and_for_signed_in_owners(client, account):
    assert client.post("/alerts/", {"enabled": "on"}).status_code == 302  # to sign-in
    client.force_login(account.owner)
    assert client.get("/alerts/").status_code == 405


def test_send_quota_alerts_is_idempotent(run_command, clock):
    account, key, _ = small("day")
    _, quiet_key, _ = small("day")
    use(key, 9)
    use(quiet_key, 3)
    first = json.loads(run_command("send_quota_alerts", "--json"))
    assert first == {"sent": [{"account": account.pk, "threshold": 80}]}
    assert json.loads(run_command("send_quota_alerts", "--json")) == {"sent": []}
    assert "Sent 0 quota alert(s)." in run_command("send_quota_alerts")
    assert len(mail.outbox) == 1


def test_the_usage_flusher_runs_the_check_at_most_once_per_interval(settings, clock):
    settings.QUOTA_ALERT_CHECK_SECONDS = 3600
    _, key, _ = small("day")
    use(key, 8)  # its flush checks the accounts it wrote: 80 %
    assert thresholds_mailed() == ["foodservice: 80% of your quota used"]
    use(key, 2)  # 100 %, but inside the interval: waits for the next check
    assert len(mail.outbox) == 1
    assert [a.threshold for a in quota_alerts_check()] == [100]  # the command catches up


def test_a_failing_receiver_never_makes_the_flush_put_counts_back(settings, clock, monkeypatch):
    settings.QUOTA_ALERT_CHECK_SECONDS = 1
    _, key, _ = small("day")

    calls = []

    def broken(**kwargs):
        calls.append(kwargs)
        raise RuntimeError("alerts down")

    monkeypatch.setattr("metering.alerts.services.quota_alerts_check", broken)
    use(key, 9)  # flushes; the check raises inside the receiver
    from metering.models import KeyUsageHour

    assert calls  # the receiver ran, and failed
    assert KeyUsageHour.objects.get(key=key).count == 9
    assert usage_flush() == 0  # nothing was put back to be written twice


def test_an_email_that_cannot_be_sent_is_retried_by_the_next_check(settings, clock):
    _, key, _ = small("day")
    use(key, 8)
    settings.EMAIL_BACKEND = "tests.metering.alerts.failing_mail.EmailBackend"
    assert quota_alerts_check() == []
    assert not QuotaAlert.objects.exists()
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert [a.threshold for a in quota_alerts_check()] == [80]


def test_accounts_without_recent_usage_are_not_checked(clock):
    _, key, _ = small("month")
    use(key, 9)
    clock.move_to(T0 + timedelta(days=33))
    assert quota_alerts_check() == []
