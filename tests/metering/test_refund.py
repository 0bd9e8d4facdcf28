"""A failed request is not charged (issue 11.7): a metered request the meter admitted and
that is then answered 5xx (a bug, the database unreachable) gives its unit back, with
one more meter call on that error path only, on both backends. It is recorded as
failed in the key's hourly history (issue 16.1), never counted against the quota."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import Sum

from core.calendar import hour_of, to_us
from keys.services import key_create
from metering.backends import get_meter
from metering.bucket import Bucket
from metering.history import usage_flush
from metering.meter import Meter, Outcome, Seed
from metering.models import KeyUsageHour
from metering.windows import window_at
from tests.conftest import T0
from tests.support.meter_cases import ANCHOR, SMALL_DAY, SMALL_MONTH
from tests.support.metering import custom_account, read, usage

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.metering.urls")]


def test_5xx_answers_give_their_unit_back_and_are_recorded_as_failed(api_client, clock):
    account = custom_account(quota=5)
    key, secret = key_create(account=account, label="k")
    assert [read(api_client, secret).status_code for _ in range(2)] == [200, 200]
    bug = read(api_client, secret, pk=500)
    outage = read(api_client, secret, pk=503)
    assert (bug.status_code, outage.status_code) == (500, 503)
    # Their RateLimit headers tell the standing without them.
    assert bug["RateLimit-Remaining"] == outage["RateLimit-Remaining"] == "3"
    assert usage(api_client, secret)["request_count"] == 2
    # The whole quota is still there: 3 more are admitted, then the quota 429.
    assert [read(api_client, secret).status_code for _ in range(4)] == [200, 200, 200, 429]
    usage_flush()
    row = KeyUsageHour.objects.get(key=key)
    assert (row.count, row.failed, row.quota_refused) == (5, 2, 1)


def test_a_success_makes_no_refund_call(api_client, key_and_secret, clock, monkeypatch):
    meter = get_meter()
    calls = []
    original = meter.refund
    monkeypatch.setattr(meter, "refund", lambda **kw: calls.append(kw) or original(**kw))
    for pk in (1, 0, 403):  # 200, 404, 403: charged, no refund
        read(api_client, key_and_secret[1], pk=pk)
    assert calls == []
    read(api_client, key_and_secret[1], pk=503)
    assert len(calls) == 1


def test_a_refund_in_a_billing_period_frees_its_unit(api_client, clock):
    account = custom_account(quota=3, window="month")
    _, secret = key_create(account=account, label="k")
    read(api_client, secret, pk=503)
    assert [read(api_client, secret).status_code for _ in range(4)] == [200, 200, 200, 429]


def consume(meter: Meter, account_id: int, key_id: int, limits, at=T0, anchor=None):
    window = window_at(limits, anchor, at)
    return meter.consume(
        account_id=account_id,
        window=window,
        bucket=Bucket.for_limits(limits),
        now_us=to_us(at),
        seed=lambda: Seed(hours={}, period_count=0),
        key_id=key_id,
    )


@pytest.mark.parametrize(("limits", "anchor"), [(SMALL_DAY, None), (SMALL_MONTH, ANCHOR)])
def test_meter_refunds_never_exceed_what_was_admitted(meter, limits, anchor):
    account_id = 7000 + (anchor is not None)
    for _ in range(3):
        assert consume(meter, account_id, 1, limits, anchor=anchor).outcome == Outcome.ADMITTED
    hour = hour_of(T0)
    assert [meter.refund(account_id=account_id, key_id=1, hour=hour) for _ in range(4)] == [
        True,
        True,
        True,
        False,  # nothing left to give back
    ]
    assert not meter.refund(account_id=account_id, key_id=2, hour=hour)  # other key
    assert not meter.refund(account_id=account_id, key_id=1, hour=hour - 1)  # other hour
    assert not meter.refund(account_id=999_999, key_id=1, hour=hour)  # no state
    # All three given back: the whole quota (5) is free again.
    outcomes = [consume(meter, account_id, 1, limits, anchor=anchor).outcome for _ in range(6)]
    assert outcomes == [Outcome.ADMITTED] * 5 + [Outcome.QUOTA]
    meter.remember([account_id])
    (snapshot,) = meter.snapshot()
    counts = snapshot.buckets[(1, hour)]
    assert (counts.admitted, counts.failed, counts.charged, counts.quota) == (8, 3, 5, 1)


def test_a_refund_after_the_top_of_the_hour_gives_back_the_earlier_hour(meter):
    account_id = 7100
    consume(meter, account_id, 1, SMALL_DAY)
    later = T0 + timedelta(hours=1)
    consume(meter, account_id, 1, SMALL_DAY, at=later)
    assert meter.refund(account_id=account_id, key_id=1, hour=hour_of(T0))
    tally = consume(meter, account_id, 1, SMALL_DAY, at=later)
    assert tally.used == 2  # the 14:00 request was given back, the 15:00 ones count


def test_failed_requests_are_never_in_the_charged_history(api_client, clock):
    account = custom_account(quota=100)
    _, secret = key_create(account=account, label="k")
    for pk in (1, 500, 1, 503, 1):
        read(api_client, secret, pk=pk)
    usage_flush()
    totals = KeyUsageHour.objects.aggregate(c=Sum("count"), f=Sum("failed"))
    assert totals == {"c": 3, "f": 2}


def test_a_batch_is_given_back_whole_or_not_at_all(meter):
    """Issue 42.3: a request of n units admitted and answered 5xx gives back its n."""
    account_id = 7200
    window = window_at(SMALL_DAY, None, T0)

    def take(units: int) -> Outcome:
        return meter.consume(
            account_id=account_id,
            window=window,
            bucket=None,
            now_us=to_us(T0),
            seed=lambda: Seed(hours={}, period_count=0),
            key_id=1,
            units=units,
        ).outcome

    assert take(4) == Outcome.ADMITTED
    hour = hour_of(T0)
    assert not meter.refund(account_id=account_id, key_id=1, hour=hour, units=5)  # never more
    assert meter.refund(account_id=account_id, key_id=1, hour=hour, units=4)
    assert not meter.refund(account_id=account_id, key_id=1, hour=hour, units=1)
    assert take(5) == Outcome.ADMITTED  # all four came back: the quota is whole again
    meter.remember([account_id])
    (snapshot,) = meter.snapshot()
    counts = snapshot.buckets[(1, hour)]
    assert (counts.admitted, counts.failed, counts.charged) == (9, 4, 5)
