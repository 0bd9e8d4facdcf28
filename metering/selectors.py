"""Reads of usage: the account's standing in its window (GET /v1/usage, the dashboard)
and the per-key history (the dashboard's charts).

Account totals come from the live meter (Redis or in-process), so they agree with the
RateLimit headers of the last metered response. Per-key numbers come from the durable
history, which trails the live counts by at most ``settings.METER_FLUSH_SECONDS``. The
series carry every outcome (issue 16.1): requests admitted and counted, refused with
the quota 429 or the burst 429, and answered 5xx (given back); only the first counts.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from django.db.models import QuerySet, Sum
from django.utils import timezone

from accounts.models import Account
from accounts.tiers import TierLimits
from core.calendar import DAY_HOURS, hour_of, hour_start, to_us
from keys.models import ApiKey
from keys.principal import KeyPrincipal
from metering.backends import get_meter
from metering.bucket import Bucket
from metering.decisions import decision_for
from metering.history import OUTCOME_COLUMNS, usage_seed
from metering.history_range import HistoryRange, floor_to
from metering.meter import MeterUnavailable, Outcome, Tally
from metering.models import KeyUsageHour
from metering.windows import day_releases, window_at

logger = logging.getLogger("foodservice.metering")

# What GET /v1/usage calls each window kind (spec 2.4 gives "monthly").
QUOTA_WINDOW_NAMES = {"day": "daily", "month": "monthly"}
# Days in the daily series of an account on a rolling day (it has no billing period).
DAILY_SERIES_DAYS_ON_ROLLING_DAY = 30
# The dashboard warns, with an Upgrade button, once this share of the quota is used.
NEARLY_SPENT = 0.8


@dataclass(frozen=True, slots=True)
class UsageSummary:
    """An account's standing in its current window (spec 2.4), across all its keys.

    ``period_end`` is when allowance next frees up (``MeterDecision.reset_at``, the moment
    of ``RateLimit-Reset``): the top of the next hour on a rolling day, the renewal on a
    billing period; with nothing left, when a request is admitted again.
    ``live`` is False when the meter was unreachable and the numbers come from the
    history (which may trail by a few seconds).
    """

    tier: str
    quota_window: str
    request_quota: int
    request_count: int
    remaining: int
    period_end: datetime
    live: bool = True


@dataclass(frozen=True, slots=True)
class UsagePoint:
    """Requests in the interval starting at ``start`` (an hour or a UTC day): ``count``
    admitted and counted against the quota, ``quota_refused`` and ``burst_refused``
    refused with that 429, ``failed`` answered 5xx (not counted)."""

    start: datetime | date
    count: int
    quota_refused: int = 0
    burst_refused: int = 0
    failed: int = 0

    @property
    def total(self) -> int:
        return self.count + self.quota_refused + self.burst_refused + self.failed


def principal_usage(*, principal: KeyPrincipal, now: datetime | None = None) -> UsageSummary:
    """GET /v1/usage: the standing of the request's account. Counts nothing."""
    return _usage(
        account_id=principal.account_id,
        tier=principal.tier,
        limits=principal.limits,
        anchor=principal.billing_anchor,
        now=now or timezone.now(),
    )


def account_usage(*, account: Account, now: datetime | None = None) -> UsageSummary:
    """The dashboard's headline: ``account``'s request count, remaining, quota and
    period end in its current window, across all its keys; the same numbers as
    GET /v1/usage. Counts nothing."""
    return _usage(
        account_id=account.pk,
        tier=account.tier,
        limits=account.limits,
        anchor=account.billing_anchor,
        now=now or timezone.now(),
    )


def key_usage_in_window(*, account: Account, now: datetime | None = None) -> dict[int, int]:
    """Requests per key of ``account`` in the account's current window (the rolling 24
    hours, or the billing period so far): ``{key id: count}`` for every key the account
    ever had, revoked ones included, zero when unused. From the history."""
    counts = dict.fromkeys(ApiKey.objects.filter(account=account).values_list("pk", flat=True), 0)
    rows = _window_rows(account=account, now=now).annotate(n=Sum("count"))
    for row in rows:
        counts[row["key_id"]] = row["n"]
    return counts


def key_outcomes_in_window(
    *, account: Account, now: datetime | None = None
) -> dict[int, tuple[int, int, int, int]]:
    """Each key's requests by outcome in the account's current window, from the
    history: ``{key id: (admitted, quota 429s, burst 429s, failed)}`` for the keys
    with any; a key without is absent."""
    rows = _window_rows(account=account, now=now).annotate(*(Sum(c) for c in OUTCOME_COLUMNS))
    count, quota, burst, failed = (f"{c}__sum" for c in OUTCOME_COLUMNS)
    return {row["key_id"]: (row[count], row[quota], row[burst], row[failed]) for row in rows}


def _window_rows(*, account: Account, now: datetime | None) -> QuerySet[KeyUsageHour]:
    """``account``'s history rows in its current window (the rolling 24 hours, or the
    billing period so far), grouped by key: ``values("key_id")``, ready to annotate."""
    window = window_at(account.limits, account.billing_anchor, now or timezone.now())
    return KeyUsageHour.objects.filter(
        account=account,
        hour__gte=hour_start(window.first_hour),
        hour__lte=hour_start(window.hour),
    ).values("key_id")


def key_usage_hourly(*, key: ApiKey, now: datetime | None = None) -> list[UsagePoint]:
    """The last 24 hours of ``key``, one point per UTC hour, oldest first, the current
    (partial) hour last; zero-filled. Survives rotation (same key id)."""
    last = hour_of(now or timezone.now())
    first = last - DAY_HOURS + 1
    rows = KeyUsageHour.objects.filter(
        key=key, hour__gte=hour_start(first), hour__lte=hour_start(last)
    ).values_list("hour", *OUTCOME_COLUMNS)
    by_hour = {hour_of(moment): counts for moment, *counts in rows}
    return [UsagePoint(hour_start(h), *by_hour.get(h, (0,))) for h in range(first, last + 1)]


def key_usage_daily(*, key: ApiKey, now: datetime | None = None) -> list[UsagePoint]:
    """``key``'s requests per UTC day, oldest first, today last, zero-filled: every day
    of the account's current billing period so far (the first day counted from the
    period's start), or the last 30 days on a rolling-day tier (no billing period)."""
    now = (now or timezone.now()).astimezone(UTC)
    account = key.account
    window = window_at(account.limits, account.billing_anchor, now)
    if window.start_hour is not None:
        since = hour_start(window.start_hour)
    else:
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        since = midnight - timedelta(days=DAILY_SERIES_DAYS_ON_ROLLING_DAY - 1)
    rows = KeyUsageHour.objects.filter(key=key, hour__gte=since, hour__lte=now).values_list(
        "hour", *OUTCOME_COLUMNS
    )
    by_day: dict[date, list[int]] = {}
    for moment, *counts in rows:
        day = by_day.setdefault(moment.astimezone(since.tzinfo).date(), [0] * len(counts))
        for i, n in enumerate(counts):
            day[i] += n
    days = (now.date() - since.date()).days + 1
    return [
        UsagePoint(day, *by_day.get(day, (0,)))
        for day in (since.date() + timedelta(days=i) for i in range(days))
    ]


def _usage(
    *, account_id: int, tier: str, limits: TierLimits, anchor: datetime | None, now: datetime
) -> UsageSummary:
    window = window_at(limits, anchor, now)
    bucket = Bucket.for_limits(limits)
    live = True
    try:
        tally = get_meter().consume(
            account_id=account_id,
            window=window,
            bucket=bucket,
            now_us=to_us(now),
            seed=lambda: usage_seed(account_id=account_id, window=window),
            peek=True,
        )
    except MeterUnavailable:
        logger.warning("meter unreachable: usage answered from the history")
        live = False
        seed = usage_seed(account_id=account_id, window=window)
        used = seed.period_count if window.start_hour is not None else sum(seed.hours.values())
        tally = Tally(Outcome.PEEKED, used, 0, window.hour)
    decision = decision_for(tally, window=window, bucket=bucket, now=now)
    return UsageSummary(
        tier=tier,
        quota_window=QUOTA_WINDOW_NAMES[window.kind],
        request_quota=decision.quota,
        request_count=decision.used,
        remaining=decision.remaining,
        period_end=decision.reset_at,
        live=live,
    )


@dataclass(frozen=True, slots=True)
class Release:
    """``requests`` of a rolling day that leave the window (free up) at ``at``."""

    at: datetime
    requests: int


@dataclass(frozen=True, slots=True)
class UsageMeter:
    """The account's standing in its window, shaped for the usage meter.

    ``releases``: on a rolling day, when the requests counted now free up, hour by hour
    and soonest first (``windows.day_releases``); ``frees_at`` is the first of them.
    ``renews_at``: on a billing period, the renewal. ``low``/``high`` colour the meter."""

    used: int
    quota: int
    remaining: int
    frees_at: datetime | None
    renews_at: datetime | None
    live: bool
    available: bool = True
    releases: tuple[Release, ...] = ()

    @property
    def low(self) -> float:
        return self.quota * 0.75

    @property
    def high(self) -> float:
        return self.quota * 0.9

    @property
    def period_end(self) -> datetime | None:
        return self.renews_at

    @property
    def spent(self) -> bool:
        """Every metered request is refused with the quota 429 until allowance frees up."""
        return self.available and self.quota > 0 and self.remaining <= 0

    @property
    def nearly_spent(self) -> bool:
        """At least ``NEARLY_SPENT`` of the quota used, some still left (issue 29)."""
        return self.available and not self.spent and self.used >= self.quota * NEARLY_SPENT


def usage_summary(*, account: Account, now: datetime | None = None) -> UsageMeter:
    """The account's usage in its current window, across all keys (= GET /v1/usage),
    and on a rolling day when that usage frees up (``usage_releases``)."""
    now = now or timezone.now()
    summary = account_usage(account=account, now=now)
    monthly = account.limits.window == "month"
    releases = (
        () if monthly else usage_releases(account=account, used=summary.request_count, now=now)
    )
    return UsageMeter(
        used=summary.request_count,
        quota=summary.request_quota,
        remaining=summary.remaining,
        frees_at=releases[0].at if releases else None,
        renews_at=summary.period_end if monthly else None,
        live=summary.live,
        releases=releases,
    )


def usage_releases(*, account: Account, used: int, now: datetime) -> tuple[Release, ...]:
    """When the ``used`` requests of ``account``'s rolling day free up, hour by hour
    (spec 8.1), soonest first. The hours come from the history; requests the live
    meter counted that no flush has copied yet (at most ``METER_FLUSH_SECONDS`` old)
    belong to the current hour, so they are added to its release and the releases
    always add up to ``used``."""
    window = window_at(account.limits, account.billing_anchor, now)
    if window.start_hour is not None or used <= 0:
        return ()
    hours = dict(usage_seed(account_id=account.pk, window=window).hours)
    missing = used - sum(hours.values())
    if missing > 0:
        hours[window.hour] = hours.get(window.hour, 0) + missing
    return tuple(Release(at, n) for at, n in day_releases(hours, window.hour))


def usage_history_by_key(*, account_id: int, history: HistoryRange) -> dict[int, list[UsagePoint]]:
    """Each key's requests by outcome in every bucket of ``history`` (issue 29.4), from
    the durable history: ``{key id: points}``, oldest first, zero-filled, for every key
    of the account (revoked and expired ones included) or only ``history.key_id``.

    The one read behind GET /v1/usage/history, the dashboard's charts and its CSV. It
    trails the live meter by at most ``METER_FLUSH_SECONDS`` (what no flush has copied
    yet); once flushed, its admitted requests over a window equal the meter's count."""
    keys = ApiKey.objects.filter(account_id=account_id)
    if history.key_id is not None:
        keys = keys.filter(pk=history.key_id)
    sums: dict[int, dict[datetime, list[int]]] = {k: {} for k in keys.values_list("pk", flat=True)}
    rows = KeyUsageHour.objects.filter(
        account_id=account_id, hour__gte=history.start, hour__lt=history.end
    )
    if history.key_id is not None:
        rows = rows.filter(key_id=history.key_id)
    for key_id, moment, *counts in rows.values_list("key_id", "hour", *OUTCOME_COLUMNS):
        bucket = sums.setdefault(key_id, {}).setdefault(
            floor_to(moment, history.granularity), [0] * len(counts)
        )
        for i, n in enumerate(counts):
            bucket[i] += n
    return {
        key_id: [UsagePoint(at, *by_bucket.get(at, (0,))) for at in history.buckets()]
        for key_id, by_bucket in sums.items()
    }


def usage_history(*, account_id: int, history: HistoryRange) -> list[UsagePoint]:
    """The account's requests by outcome in every bucket of ``history``, summed over
    its keys (or ``history.key_id`` alone): ``usage_history_by_key`` added up."""
    return usage_totals(usage_history_by_key(account_id=account_id, history=history), history)


def usage_totals(
    series: Mapping[int, Sequence[UsagePoint]], history: HistoryRange
) -> list[UsagePoint]:
    """The points of ``series`` (``usage_history_by_key``'s answer for ``history``)
    added up bucket by bucket: for a caller that has the per-key series already."""
    totals = [UsagePoint(at, 0) for at in history.buckets()]
    for points in series.values():
        totals = [
            UsagePoint(
                t.start,
                t.count + p.count,
                t.quota_refused + p.quota_refused,
                t.burst_refused + p.burst_refused,
                t.failed + p.failed,
            )
            for t, p in zip(totals, points, strict=True)
        ]
    return totals
