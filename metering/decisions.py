"""What a metered request learns from the meter (spec 7, 8.4). Pure: no I/O.

``decision_for`` turns the meter's raw ``Tally`` into a ``MeterDecision``: admitted or
refused (and by which limit), what is left, when allowance next frees up and how long a
refused client must wait. The throttle raises the 429s from it and the RateLimit
headers (metering/headers.py) and GET /v1/usage are rendered from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from core.calendar import epoch_seconds, seconds_until, to_us
from metering import bucket as buckets
from metering.bucket import SECOND_US, Bucket
from metering.meter import Outcome, Tally
from metering.windows import Window, day_frees_at


@dataclass(frozen=True, slots=True)
class MeterDecision:
    """One account's standing at ``now``, after the request was decided.

    ``refused_by`` is None when the request was admitted (and counted), else "quota" or
    "burst" (and nothing was counted). ``used`` counts requests in the window across
    every key of the account. ``retry_after``: whole seconds, rounded up and at least 1,
    until a retry will be admitted (None when admitted). ``bucket_tokens`` and
    ``bucket_full_in``: the burst bucket's whole tokens left and seconds until it is full
    (None when unthrottled). ``quota_admits_in`` and ``bucket_admits_in``: with nothing
    left under that limit, whole seconds (rounded up, at least 1) until it admits a
    request again, else None (issue 14.4: the draft's ``t`` for ``r=0``; on the quota
    429 it equals ``retry_after``). ``hour``: the hour number the meter counted the
    request in (what a refund after a 5xx gives back; None when not from a meter
    decision).
    """

    refused_by: Literal["quota", "burst"] | None
    window: Window
    used: int
    now: datetime
    bucket: Bucket | None
    bucket_tokens: int | None
    bucket_full_in: int | None
    retry_after: int | None = None
    quota_admits_in: int | None = None
    bucket_admits_in: int | None = None
    hour: int | None = None
    quota_frees_at: datetime | None = None
    # What the meter's round trip read besides its decision (the ``carry`` key of
    # ``usage_consume``; None when nothing was asked or found): not part of the standing.
    carried: bytes | None = field(default=None, repr=False, compare=False)
    # What the request was counted for (issue 42.3: a batch of foods, one a food);
    # what a refund after a 5xx gives back.
    units: int = 1

    @property
    def allowed(self) -> bool:
        return self.refused_by is None

    @property
    def quota(self) -> int:
        return self.window.quota

    @property
    def remaining(self) -> int:
        return max(0, self.window.quota - self.used)

    @property
    def reset_at(self) -> datetime:
        """When allowance next frees up (spec 8.4): with requests left, the window's next
        step (the top of the next hour on a rolling day, the renewal); with none left,
        when enough frees up to admit a request again (``quota_frees_at``: on a rolling
        day, when enough counted hours have aged out). So a quota 429 names one moment:
        ``RateLimit-Reset`` = ``Retry-After`` = the quota's ``t`` (issue 24.9; the top
        of the next hour frees nothing for a Taster who spent the day in one hour)."""
        return self.quota_frees_at or self.window.resets_at

    @property
    def reset_after(self) -> int:
        """Seconds until ``reset_at`` (spec 8.4 RateLimit-Reset)."""
        return seconds_until(self.reset_at, self.now)

    @property
    def reset_epoch(self) -> int:
        """The same moment as a Unix timestamp (spec 8.4 X-RateLimit-Reset)."""
        return epoch_seconds(self.reset_at)


def decision_for(
    tally: Tally, *, window: Window, bucket: Bucket | None, now: datetime, units: int = 1
) -> MeterDecision:
    """The decision the meter's ``tally`` stands for (``Outcome.PEEKED``: a standing
    without a decision, reported as admitted). On a rolling day the tally's hourly
    counts, when it has them, say when a spent quota next admits a request; without
    them the next top of the hour is the earliest it can. A request of ``units`` units
    (issue 42.3) refused waits until all of them fit (quota) or the bucket holds its
    tokens (burst); the standing after an admitted one is about the next single unit."""
    now_us = to_us(now)
    needed = units if tally.outcome in (Outcome.QUOTA, Outcome.BURST) else 1
    quota_admits_in = frees_at = None
    if tally.used + needed > window.quota:
        frees_at = window.resets_at
        if window.kind == "day" and tally.hours:
            frees_at = day_frees_at(tally.hour_counts(), tally.hour, window.quota, needed)
        quota_admits_in = seconds_until(frees_at, now)
    bucket_admits_in = full_in = tokens = None
    if bucket is not None:
        tokens = buckets.tokens(bucket, tally.tat, now_us)
        full_in = -(-buckets.full_in_us(bucket, tally.tat, now_us) // SECOND_US)
        if tokens == 0:
            bucket_admits_in = max(1, -(-buckets.wait_us(bucket, tally.tat, now_us) // SECOND_US))
    refused_by: Literal["quota", "burst"] | None = None
    retry_after = None
    if tally.outcome == Outcome.QUOTA:
        refused_by, retry_after = "quota", quota_admits_in
    elif tally.outcome == Outcome.BURST and bucket is not None:
        wait = buckets.wait_us(bucket, tally.tat, now_us, buckets.tokens_for(bucket, units))
        refused_by, retry_after = "burst", max(1, -(-wait // SECOND_US))
    return MeterDecision(
        refused_by=refused_by,
        window=window,
        used=tally.used,
        now=now,
        bucket=bucket,
        bucket_tokens=tokens,
        bucket_full_in=full_in,
        retry_after=retry_after,
        quota_admits_in=quota_admits_in,
        bucket_admits_in=bucket_admits_in,
        hour=tally.hour,
        quota_frees_at=frees_at,
        carried=tally.carried,
        units=units,
    )
