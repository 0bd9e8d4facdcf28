"""metering/bucket.py: the burst bucket, one token per request (spec 8.3)."""

from __future__ import annotations

import pytest

from accounts.tiers import TierLimits
from metering import bucket as buckets
from metering.bucket import Bucket

S = 1_000_000
T0 = 1_773_152_700 * S


def flood(bucket: Bucket, n: int, now: int, tat: int = 0) -> tuple[int, int]:
    """(admitted, tat) after ``n`` requests at the same instant."""
    admitted = 0
    for _ in range(n):
        taken = buckets.take(bucket, tat, now)
        if taken is not None:
            admitted, tat = admitted + 1, taken
    return admitted, tat


@pytest.mark.parametrize(
    ("limits", "size", "interval"),
    [
        (TierLimits(quota=250, window="day", rate=1.0, burst=10), 10, S),
        (TierLimits(quota=250_000, window="month", rate=10.0, burst=50), 50, S // 10),
        (TierLimits(quota=9, window="month", rate=3.0, burst=5), 5, 333_333),
        (TierLimits(quota=9, window="month", rate=0.5, burst=1), 1, 2 * S),
    ],
)
def test_bucket_for_limits(limits, size, interval):
    assert Bucket.for_limits(limits) == Bucket(size=size, interval_us=interval)


def test_unthrottled_limits_have_no_bucket():
    limits = TierLimits(quota=2_000_000, window="month", rate=None, burst=None)
    assert Bucket.for_limits(limits) is None


@pytest.mark.parametrize(("size", "rate"), [(10, 1.0), (50, 10.0), (1, 1.0), (500, 100.0)])
def test_an_instant_flood_admits_exactly_the_burst(size, rate):
    bucket = Bucket.for_limits(TierLimits(quota=10**9, window="month", rate=rate, burst=size))
    admitted, _ = flood(bucket, size * 3, T0)
    assert admitted == size


@pytest.mark.parametrize(
    ("rate", "elapsed_us", "refilled"),
    [
        (1.0, S - 1, 0),  # not yet a whole token
        (1.0, S, 1),
        (1.0, 3 * S + S // 2, 3),
        (10.0, S, 10),  # Sous Chef: 10 per second
        (10.0, 100 * S, 50),  # never more than the bucket holds
    ],
)
def test_an_empty_bucket_refills_at_the_sustained_rate(rate, elapsed_us, refilled):
    size = 10 if rate == 1.0 else 50
    bucket = Bucket.for_limits(TierLimits(quota=10**9, window="month", rate=rate, burst=size))
    _, tat = flood(bucket, size, T0)
    admitted, _ = flood(bucket, size * 2, T0 + elapsed_us, tat)
    assert admitted == min(refilled, size)


def test_a_refused_request_takes_no_token():
    bucket = Bucket(size=2, interval_us=S)
    _, tat = flood(bucket, 2, T0)
    assert buckets.take(bucket, tat, T0) is None
    assert buckets.take(bucket, tat, T0 + S) is not None  # unchanged by the refusal


@pytest.mark.parametrize(
    ("taken", "after_us", "wait", "tokens", "full_in"),
    [
        (0, 0, 0, 10, 0),
        (1, 0, 0, 9, S),
        (10, 0, S, 0, 10 * S),
        (10, S // 4, 3 * S // 4, 0, 10 * S - S // 4),
        (10, S, 0, 1, 9 * S),
    ],
)
def test_wait_tokens_and_refill_time(taken, after_us, wait, tokens, full_in):
    bucket = Bucket(size=10, interval_us=S)
    _, tat = flood(bucket, taken, T0)
    now = T0 + after_us
    assert buckets.wait_us(bucket, tat, now) == wait
    assert buckets.tokens(bucket, tat, now) == tokens
    assert buckets.full_in_us(bucket, tat, now) == full_in


def test_refill_seconds_is_the_time_an_empty_bucket_takes_to_fill():
    assert Bucket(size=10, interval_us=S).refill_seconds == 10
    assert Bucket(size=50, interval_us=S // 10).refill_seconds == 5
    assert Bucket(size=5, interval_us=333_333).refill_seconds == 2
