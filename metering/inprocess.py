"""The meter in this process's memory (``MemoryMeter``): the embedded default's, a
line-for-line mirror of ``lua/consume.lua`` (and ``refund.lua``, ``prune.lua``) kept equal
to it by tests/metering/test_parity.py. It changes when the scripts change."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from core.calendar import DAY_HOURS, HOUR_US
from metering import bucket as buckets
from metering.bucket import Bucket
from metering.meter import AccountUsage, Buckets, KeyHour, Outcome, Seed, SeedLoader, Tally
from metering.windows import Window


@dataclass(slots=True)
class _State:
    """One account's state; consume.lua's hash fields in brackets."""

    clock_us: int = 0  # the latest time seen: time never goes back [t]
    tat: int = 0  # the burst bucket's theoretical arrival time (metering/bucket.py) [tat]
    period_start_hour: int = -1  # the billing period's first hour, -1 on a rolling day [ps]
    period_count: int = 0  # requests counted since period_start_hour [pn]
    ring: dict[int, tuple[int, int]] = field(default_factory=dict)  # slot -> (hour, n)
    # (key id, hour) -> [admitted, failed, quota 429s, burst 429s]; key id -> latest use
    buckets: dict[KeyHour, list[int]] = field(default_factory=dict)
    last_used: dict[int, int] = field(default_factory=dict)


class MemoryMeter:
    """The meter in this process's memory, under one lock: the same algorithm as
    ``consume.lua`` (and ``refund.lua``, ``prune.lua``), line for line."""

    checks_epochs = False  # the embedded default keeps no principals in process
    carries = False  # no store shared by processes to read a carried value from

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[int, _State] = {}
        self._seen: set[int] = set()

    def reset(self) -> None:
        """Forget every account (as a restart would); usage is rebuilt from history."""
        with self._lock:
            self._states.clear()
            self._seen.clear()

    def consume(
        self,
        *,
        account_id: int,
        window: Window,
        bucket: Bucket | None,
        now_us: int,
        seed: SeedLoader,
        peek: bool = False,
        key_id: int = 0,
        epoch: str | None = None,
        carry: str | None = None,
        units: int = 1,
    ) -> Tally:
        with self._lock:
            state = self._states.get(account_id)
        if state is None:
            loaded = seed()  # outside the lock: a database read
            with self._lock:
                if account_id not in self._states:
                    self._states[account_id] = _seeded(loaded, window, now_us)
        with self._lock:
            if not peek:
                self._seen.add(account_id)
            state = self._states[account_id]
            return _step(state, window, bucket, now_us, peek, key_id, units)

    def refund(self, *, account_id: int, key_id: int, hour: int, units: int = 1) -> bool:
        with self._lock:
            state = self._states.get(account_id)
            counts = None if state is None else state.buckets.get((key_id, hour))
            if state is None or counts is None or counts[0] - counts[1] < units:
                return False
            counts[1] += units
            slot_hour, slot_n = state.ring.get(hour % DAY_HOURS, (None, 0))
            if slot_hour == hour:
                state.ring[hour % DAY_HOURS] = (hour, max(0, slot_n - units))
            if 0 <= state.period_start_hour <= hour:
                state.period_count = max(0, state.period_count - units)
            self._seen.add(account_id)
            return True

    def remember(self, account_ids: Iterable[int]) -> None:
        with self._lock:
            self._seen.update(account_ids)

    def snapshot(self, *, sweep: bool = False) -> list[AccountUsage]:
        with self._lock:
            ids, self._seen = (set(self._states) if sweep else self._seen), set()
            usages = []
            for account_id in sorted(ids):
                state = self._states.get(account_id)
                if state is None or not (state.buckets or state.last_used):
                    continue
                usages.append(
                    AccountUsage(
                        account_id,
                        {kh: Buckets(*c) for kh, c in state.buckets.items()},
                        dict(state.last_used),
                    )
                )
            return usages

    def prune(self, usages: Iterable[AccountUsage], *, before_hour: int) -> None:
        with self._lock:
            for usage in usages:
                state = self._states.get(usage.account_id)
                if state is None:
                    continue
                for (kid, hour), counts in usage.buckets.items():
                    held = state.buckets.get((kid, hour))
                    if hour < before_hour and held is not None and Buckets(*held) == counts:
                        del state.buckets[(kid, hour)]
                for kid, at in usage.last_used.items():
                    if state.last_used.get(kid) == at:
                        del state.last_used[kid]


def _seeded(seed: Seed, window: Window, now_us: int) -> _State:
    state = _State(
        clock_us=now_us,
        period_start_hour=-1 if window.start_hour is None else window.start_hour,
        period_count=seed.period_count,
    )
    for hour, n in seed.hours.items():
        if n:
            state.ring[hour % DAY_HOURS] = (hour, n)
    for key_hour, counts in seed.buckets.items():
        state.buckets[key_hour] = [counts.admitted, counts.failed, counts.quota, counts.burst]
    return state


def _step(
    state: _State,
    window: Window,
    bucket: Bucket | None,
    now_us: int,
    peek: bool,
    key_id: int,
    units: int = 1,
) -> Tally:
    now_us = max(now_us, state.clock_us)  # time never goes back (see consume.lua)
    hour = now_us // HOUR_US
    counts = [0] * DAY_HOURS
    for h, n in state.ring.values():
        if hour - DAY_HOURS < h <= hour:
            counts[h - hour + DAY_HOURS - 1] = n
    ps, pn = state.period_start_hour, state.period_count
    if window.start_hour is not None:
        if window.start_hour > ps:  # a period only ever moves forward
            ps = window.start_hour
            pn = sum(n for k, n in enumerate(counts) if hour - DAY_HOURS + 1 + k >= ps)
        used = pn
    else:
        used = sum(counts)
    # consume.lua's with_day_counts(): a peek and the quota 429 carry the rolling day's counts
    day_counts = tuple(counts) if window.start_hour is None else ()
    if peek:
        return Tally(Outcome.PEEKED, used, state.tat, hour, day_counts)
    key_counts = state.buckets.setdefault((key_id, hour), [0, 0, 0, 0])
    if used + units > window.quota:
        key_counts[2] += 1
        return Tally(Outcome.QUOTA, used, state.tat, hour, day_counts)
    tat = state.tat
    if bucket is not None:
        taken = buckets.take(bucket, tat, now_us, buckets.tokens_for(bucket, units))
        if taken is None:
            key_counts[3] += 1
            return Tally(Outcome.BURST, used, max(tat, now_us), hour)
        tat = taken
    key_counts[0] += units
    state.last_used[key_id] = now_us
    slot = hour % DAY_HOURS
    slot_hour, slot_n = state.ring.get(slot, (None, 0))
    state.ring[slot] = (hour, slot_n + units if slot_hour == hour else units)
    state.clock_us, state.tat = now_us, tat
    state.period_start_hour, state.period_count = ps, pn + units
    return Tally(Outcome.ADMITTED, used + units, tat, hour)
