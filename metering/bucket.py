"""The burst bucket (spec 8.3): a token bucket per account, one token per request,
refilled at the sustained rate. Pure: no I/O, time is passed in.

A request of several units (a batch of foods, issue 42.3) takes one token per unit, at
most the bucket's size (``tokens_for``): it empties the bucket as that many single reads
would, and a batch larger than the bucket is still admitted from a full bucket.

The bucket is kept as one integer, its *theoretical arrival time* (``tat``, the GCRA
form of a token bucket): the instant at which the bucket would be full again. With
``interval`` microseconds per token and ``size`` tokens, the bucket at ``now`` holds
``size - (tat - now) / interval`` tokens. One integer and integer arithmetic mean the
Lua script (Redis doubles are exact up to 2**53) and Python compute bit-identical
answers, and no float ever has to survive a round trip through a Redis string.
"""

from __future__ import annotations

from dataclasses import dataclass

from accounts.tiers import TierLimits

SECOND_US = 1_000_000


@dataclass(frozen=True, slots=True)
class Bucket:
    """``size`` tokens, one refilled every ``interval_us`` microseconds."""

    size: int
    interval_us: int

    def __post_init__(self) -> None:
        if self.size < 1 or self.interval_us < 1:
            raise ValueError("a bucket holds at least one token and refills at a finite rate")

    @classmethod
    def for_limits(cls, limits: TierLimits) -> Bucket | None:
        """The bucket of ``limits``, or None when unthrottled. The refill interval is the
        rate's reciprocal rounded to the microsecond."""
        if limits.rate is None or limits.burst is None:
            return None
        return cls(size=limits.burst, interval_us=max(1, round(SECOND_US / limits.rate)))

    @property
    def refill_seconds(self) -> int:
        """Whole seconds an empty bucket takes to fill (the burst policy's window)."""
        return max(1, -(-self.size * self.interval_us // SECOND_US))


def tokens_for(bucket: Bucket, units: int) -> int:
    """The tokens a request of ``units`` units takes: one a unit, at most the bucket."""
    return max(1, min(units, bucket.size))


def take(bucket: Bucket, tat: int, now_us: int, count: int = 1) -> int | None:
    """The new ``tat`` after taking ``count`` tokens (``tokens_for``) at ``now_us``, or
    None when the bucket holds fewer (then nothing changes: a refused request costs no
    token)."""
    start = max(tat, now_us)
    if start - now_us > (bucket.size - count) * bucket.interval_us:
        return None
    return start + count * bucket.interval_us


def wait_us(bucket: Bucket, tat: int, now_us: int, count: int = 1) -> int:
    """Microseconds until ``count`` tokens are available (0 when they are now)."""
    return max(0, max(tat, now_us) - (bucket.size - count) * bucket.interval_us - now_us)


def tokens(bucket: Bucket, tat: int, now_us: int) -> int:
    """Whole tokens in the bucket at ``now_us``."""
    debt = max(tat, now_us) - now_us
    return max(0, (bucket.size * bucket.interval_us - debt) // bucket.interval_us)


def full_in_us(bucket: Bucket, tat: int, now_us: int) -> int:
    """Microseconds until the bucket is full again."""
    return max(0, tat - now_us)
