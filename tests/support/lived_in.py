"""A dashboard account that has used the service for a day (issue 29.1): five keys (one
rotated, one revoked, one expiring), 100-character labels with and without spaces, a long
e-mail address, the day's quota spent, and every outcome in the history. Shared by the
lived-in layout tests and the axe-core checks (tests/browser)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.utils import timezone

from accounts.models import Account
from core.calendar import floor_hour
from keys.models import ApiKey
from keys.services import key_create, key_revoke, key_rotate
from metering.models import KeyUsageHour
from tests.factories import AccountFactory

EMAIL = "alexandra.first-lastname.engineering@example-company.com"
SPACED = ("nightly batch import of the supplier catalogue for the " * 3)[:100].strip()
UNBROKEN = ("svc" + "0123456789abcdefghijklmnopqrstuvwxyz" * 3)[:100]


def lived_in_account() -> tuple[Account, list[ApiKey]]:
    """A Taster account (250 requests a rolling day) that spent its quota today: every
    hour of the last day holds admitted requests, the last hours quota and burst 429s
    and a few failures; keys[2] was rotated, keys[3] revoked."""
    account = AccountFactory(
        owner__email=EMAIL, owner__email_verified_at=timezone.now(), market="US"
    )
    labels = [SPACED, UNBROKEN, "laptop", "staging server", "ci"]
    keys = [key_create(account=account, label=label)[0] for label in labels]
    ApiKey.objects.filter(pk=keys[4].pk).update(expires_at=timezone.now() + dt.timedelta(days=5))
    key_rotate(key=keys[2])
    key_revoke(key=keys[3])
    now = floor_hour(timezone.now())
    spent = 0
    for hours_ago in range(23, -1, -1):
        n = 10 if hours_ago else settings.FOODSERVICE_TIERS["taster"]["quota"] - spent
        spent += n
        KeyUsageHour.objects.create(
            key=keys[hours_ago % 3],
            account=account,
            hour=now - dt.timedelta(hours=hours_ago),
            count=n,
            quota_refused=40 if hours_ago == 0 else 0,
            burst_refused=3 if hours_ago in (0, 5) else 0,
            failed=1 if hours_ago == 7 else 0,
        )
    ApiKey.objects.filter(pk__in=[k.pk for k in keys[:3]]).update(last_used_at=timezone.now())
    return account, [ApiKey.objects.get(pk=k.pk) for k in keys]
