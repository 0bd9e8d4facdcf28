"""A dashboard account that has used the service for a day (issue 29.1): five keys (one
rotated, one revoked, one expiring), 100-character labels with and without spaces, a long
e-mail address, the day's quota spent, every outcome in the history, its answers by
endpoint and a full recent-requests log (issue 40.3). Shared by the
lived-in layout tests and the axe-core checks (tests/browser)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.utils import timezone

from accounts.models import Account
from core.calendar import floor_hour
from keys.models import ApiKey
from keys.services import key_create, key_revoke, key_rotate
from metering.models import KeyRequest, KeyRequestOutcome, KeyUsageHour
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
        hour = KeyUsageHour.objects.get(account=account, hour=now - dt.timedelta(hours=hours_ago))
        _answers(hour, refused=0)
    revoked = KeyUsageHour(key=keys[3], account=account, hour=now)
    _answers(revoked, refused=12)  # the revoked key, still in use somewhere
    _log(keys[0], account)
    ApiKey.objects.filter(pk__in=[k.pk for k in keys[:3]]).update(last_used_at=timezone.now())
    return account, [ApiKey.objects.get(pk=k.pk) for k in keys]


def _answers(hour: KeyUsageHour, refused: int) -> None:
    """The requests of ``hour`` by endpoint and answer, the counted ones split as an
    app's day would be, and ``refused`` 401s."""
    search, one, n = "GET /v1/foods", "GET /v1/foods/{public_id}", hour.count
    split = [
        (search, 429, "quota-exceeded", hour.quota_refused),
        (search, 429, "burst-limit-exceeded", hour.burst_refused),
        (one, 500, "internal-error", hour.failed),
        (search, 200, "", n - n // 5 - n // 10),
        (one, 304, "", n // 10),
        (one, 404, "not-found", n // 10),
        (search, 400, "invalid-parameter", n // 5 - n // 10),
        ("GET /v1/foods", 401, "unauthorized", refused),
    ]
    KeyRequestOutcome.objects.bulk_create(
        KeyRequestOutcome(
            key_id=hour.key_id,
            account_id=hour.account_id,
            hour=hour.hour,
            endpoint=endpoint,
            status=status,
            kind=kind,
            counted=status in (200, 304, 400, 404),
            requests=count,
        )
        for endpoint, status, kind, count in split
        if count
    )


def _log(key: ApiKey, account: Account) -> None:
    """A full log: the newest 100 requests, one a minute, with long paths."""
    now = timezone.now()
    answers = [
        ("/v1/foods", "GET /v1/foods", 200, ""),
        ("/v1/foods/sr28-01001", "GET /v1/foods/{public_id}", 304, ""),
        ("/v1/foods/fdc-2345678901234", "GET /v1/foods/{public_id}", 404, "not-found"),
        ("/v1/analysis", "POST /v1/analysis", 200, ""),
        ("/v1/foods", "GET /v1/foods", 429, "quota-exceeded"),
    ]
    KeyRequest.objects.bulk_create(
        KeyRequest(
            key=key,
            account=account,
            at=now - dt.timedelta(minutes=i),
            method="POST" if path == "/v1/analysis" else "GET",
            path=path,
            endpoint=endpoint,
            status=status,
            kind=kind,
            latency_ms=3.25 + i,
            address="2001:db8:85a3:1234::" if i % 2 else "203.0.113.77",
            request_id=f"{i:032x}",
        )
        for i, (path, endpoint, status, kind) in enumerate(answers * 20)
    )
