"""The per-key hourly buckets are counted in the meter's atomic step (issue 19) and
copied to the history as absolute values, so the history and the quota agree exactly,
under concurrency, across the top of an hour, and after the meter loses its state.

Runs on the pass's backend: the in-process meter (embedded pass) or Redis (PostgreSQL +
Redis pass), through ``usage_consume``/``usage_flush`` as the throttle and the flusher
thread call them, from many threads at once, under a controlled clock.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.db.models import Sum

from accounts.services import account_set_tier
from accounts.tiers import TierLimits
from core.calendar import hour_of
from keys.principal import KeyPrincipal
from keys.selectors import principal_build
from keys.services import key_create
from metering.history import usage_flush
from metering.models import KeyUsageHour
from metering.selectors import account_usage
from metering.services import usage_consume
from tests.factories import AccountFactory
from tests.support.metering import lose_meter_state

pytestmark = pytest.mark.django_db(transaction=True)

QUOTA = 60
KEYS = 4
LAST_SECOND = datetime(2026, 3, 10, 14, 59, 59, 900_000, tzinfo=UTC)
NEXT_HOUR = datetime(2026, 3, 10, 15, 0, 0, 100_000, tzinfo=UTC)

# (key id, hour number) -> outcome ("admitted", "quota", "burst") -> requests
Seen = dict[tuple[int, int], Counter[str]]


def tenant(limits: TierLimits) -> tuple[object, list[KeyPrincipal]]:
    account = account_set_tier(
        account=AccountFactory(market="US"), tier="executive_chef", custom=limits
    )
    keys = [key_create(account=account, label=f"key {i}")[0] for i in range(KEYS)]
    return account, [principal_build(key=key) for key in keys]


def flood(principals: list[KeyPrincipal], per_key: int, now: datetime, seen: Seen) -> None:
    """``per_key`` requests on each key at ``now``, 8 threads at once; what the meter
    decided is added to ``seen`` by key and hour."""

    def one(principal: KeyPrincipal) -> tuple[int, str]:
        try:
            decision = usage_consume(principal=principal, now=now)
        finally:
            connection.close()  # the thread's own connection (the seed's read)
        return principal.key_id, decision.refused_by or "admitted"

    jobs = [p for p in principals for _ in range(per_key)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for key_id, outcome in pool.map(one, jobs):
            seen.setdefault((key_id, hour_of(now)), Counter())[outcome] += 1


def history(account) -> dict[tuple[int, int], Counter[str]]:
    rows = KeyUsageHour.objects.filter(account=account)
    return {
        (r.key_id, hour_of(r.hour)): Counter(
            admitted=r.count, quota=r.quota_refused, burst=r.burst_refused, failed=r.failed
        )
        for r in rows
    }


def charged(account) -> int:
    return KeyUsageHour.objects.filter(account=account).aggregate(n=Sum("count"))["n"] or 0


def test_buckets_and_quota_agree_exactly_across_keys_and_the_top_of_the_hour(clock):
    account, principals = tenant(TierLimits(quota=QUOTA, window="day", rate=None, burst=None))
    seen: Seen = {}
    clock.move_to(LAST_SECOND)
    flood(principals, 10, LAST_SECOND, seen)  # 40 admitted in the 14:00 hour
    usage_flush()
    clock.move_to(NEXT_HOUR)
    flood(principals, 8, NEXT_HOUR, seen)  # 20 more admitted, then 12 quota 429s
    usage_flush()

    assert sum(c["admitted"] for c in seen.values()) == QUOTA
    assert sum(c["quota"] for c in seen.values()) == KEYS * 18 - QUOTA
    assert history(account) == seen  # every key, every hour, every outcome: exact
    assert charged(account) == QUOTA
    assert account_usage(account=account, now=NEXT_HOUR).request_count == QUOTA

    # The copy is idempotent: copying every bucket again changes nothing.
    usage_flush(sweep=True)
    assert history(account) == seen

    # Rebuilt from the history after the meter loses its state: exactly the quota, and
    # the current hour's buckets continue where the history stands.
    lose_meter_state()
    assert account_usage(account=account, now=NEXT_HOUR).request_count == QUOTA
    flood(principals[:1], 1, NEXT_HOUR, seen)
    usage_flush()
    assert seen[(principals[0].key_id, hour_of(NEXT_HOUR))]["quota"] >= 1
    assert history(account) == seen


def test_a_late_or_repeated_copy_never_moves_the_history_back(clock):
    account, principals = tenant(TierLimits(quota=1000, window="day", rate=None, burst=None))
    seen: Seen = {}
    clock.move_to(LAST_SECOND)
    flood(principals, 3, LAST_SECOND, seen)
    usage_flush()
    flood(principals, 2, LAST_SECOND, seen)
    usage_flush()
    assert history(account) == seen
    # An older copy of the same buckets (a flusher that read them before the last
    # copy and wrote after it) is skipped.
    from core.calendar import hour_start
    from metering.history import _upsert

    key_id = principals[0].key_id
    hour = hour_of(LAST_SECOND)
    _upsert([(key_id, account.pk, hour_start(hour), 3, 0, 0, 0)])
    assert history(account) == seen


def test_old_hours_are_forgotten_by_the_meter_once_copied(clock):
    from metering.backends import get_meter

    def held() -> set[tuple[int, int]]:
        get_meter().remember([account.pk])
        (usage,) = get_meter().snapshot()
        return set(usage.buckets)

    account, principals = tenant(TierLimits(quota=1000, window="day", rate=None, burst=None))
    seen: Seen = {}
    clock.move_to(LAST_SECOND)
    flood(principals[:1], 2, LAST_SECOND, seen)
    usage_flush()
    assert held() == {(principals[0].key_id, hour_of(LAST_SECOND))}  # the current hour
    later = LAST_SECOND + timedelta(hours=3)
    clock.move_to(later)
    flood(principals[:1], 1, later, seen)
    usage_flush(now=later)
    assert held() == {(principals[0].key_id, hour_of(later))}
    assert history(account) == seen


def test_a_burst_of_refused_requests_is_recorded_exactly_and_never_counted(clock):
    """Issue 16.1: 64 requests at one instant on a bucket of 10: exactly 10 admitted and
    54 burst 429s, per key exactly as the meter decided them, and the quota counts
    the 10 only; then quota 429s the same way."""
    account, principals = tenant(TierLimits(quota=14, window="day", rate=1.0, burst=10))
    seen: Seen = {}
    clock.move_to(LAST_SECOND)
    flood(principals, 16, LAST_SECOND, seen)
    usage_flush()
    assert sum(c["admitted"] for c in seen.values()) == 10
    assert sum(c["burst"] for c in seen.values()) == KEYS * 16 - 10
    assert history(account) == seen
    assert charged(account) == 10
    assert account_usage(account=account, now=LAST_SECOND).request_count == 10

    later = LAST_SECOND + timedelta(seconds=30)  # the bucket is full again
    clock.move_to(later)
    flood(principals, 5, later, seen)  # 4 admitted (the quota), 16 quota 429s
    usage_flush()
    assert sum(c["quota"] for c in seen.values()) == KEYS * 5 - 4
    assert history(account) == seen
    assert charged(account) == 14
    assert account_usage(account=account, now=later).request_count == 14
