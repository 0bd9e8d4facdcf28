"""The meter: one atomic decision per metered request (spec 7, 8), two backends.

``Meter.consume`` checks the quota and the burst bucket and counts the request as one
all-or-nothing step: admitted and counted, or refused with nothing changed, so a 429
never counts by construction and no race can admit more than the quota or the burst.

- ``RedisMeter`` runs ``lua/consume.lua`` (one EVALSHA, one round trip): shared by every
  worker on every host.
- ``MemoryMeter`` runs the same algorithm under a lock: thread-safe, for the embedded
  default's single process.

Both keep per account: the burst bucket, 24 hourly counts and the count of the current
billing period, and per key and hour the requests admitted, given back after a 5xx,
and refused by the quota and by the burst limit (``Buckets``), counted in the same
atomic step as the decision (issue 19). ``snapshot`` reads those buckets for
``metering.history.usage_flush``, which copies them to the history as absolute values;
``prune`` then forgets the flushed ones of closed hours. When an account has no state
(first use, Redis restarted or failed over, the state expired while idle, the process
restarted) both call ``seed`` for the account's usage rebuilt from the durable history
(the current hour's buckets included), and install it unless a concurrent request
already did.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from django.conf import settings

from foodservice.core import metrics
from keys.cache import epoch_key
from metering import bucket as buckets
from metering.bucket import Bucket
from metering.windows import DAY_HOURS, HOUR_US, Window

# An idle account's state expires after this long and is rebuilt from the history on
# its next request: long enough that the history's flush lag never matters.
STATE_TTL_SECONDS = 2 * 24 * 3600
CONNECT_TIMEOUT_SECONDS = 0.5
TIMEOUT_SECONDS = 0.5
LUA_PATH = Path(__file__).with_name("lua") / "consume.lua"
REFUND_LUA_PATH = LUA_PATH.with_name("refund.lua")
PRUNE_LUA_PATH = LUA_PATH.with_name("prune.lua")
# One sweep of every account's buckets (not only those this worker saw) at a time,
# across all workers: the lock's lifetime spaces them out (see usage_flush).
SWEEP_LOCK_MS = 10_000
SCAN_COUNT = 1000


class MeterUnavailable(Exception):
    """The meter's store (Redis) cannot be reached; the caller applies
    ``settings.METER_FAILURE_POLICY``."""


class Outcome(enum.IntEnum):
    NEED_SEED = 0
    ADMITTED = 1
    QUOTA = 2
    BURST = 3
    PEEKED = 4
    STALE = 5  # the caller's principal is stale (issue 13): nothing decided


@dataclass(frozen=True, slots=True)
class Buckets:
    """One key's requests in one hour, by outcome. Every field only ever grows.

    ``admitted``: admitted by the meter (those later given back included); ``failed``:
    of those, answered 5xx and given back; ``quota``/``burst``: refused with that 429.
    ``charged`` (admitted and not given back) is what the quota counts."""

    admitted: int = 0
    failed: int = 0
    quota: int = 0
    burst: int = 0

    @property
    def charged(self) -> int:
        return self.admitted - self.failed

    def fields(self, key_id: int, hour: int) -> list[tuple[str, int]]:
        """The Redis hash fields (consume.lua) holding these counts."""
        suffix = f":{key_id}:{hour}"
        return [
            ("a" + suffix, self.admitted),
            ("f" + suffix, self.failed),
            ("q" + suffix, self.quota),
            ("b" + suffix, self.burst),
        ]


# (key id, hour number)
KeyHour = tuple[int, int]


@dataclass(frozen=True, slots=True)
class AccountUsage:
    """An account's buckets as the meter holds them at one moment (absolute values),
    and each key's latest admitted request (us since the epoch)."""

    account_id: int
    buckets: Mapping[KeyHour, Buckets]
    last_used: Mapping[int, int]


@dataclass(frozen=True, slots=True)
class Seed:
    """An account's usage rebuilt from the durable history: ``hours`` (hour number ->
    requests) for the last 24 hours, ``period_count``, the requests since the
    window's ``start_hour`` (0 on a rolling day), and ``buckets``, the current hour's
    per-key buckets (so that the absolute values written later continue them)."""

    hours: Mapping[int, int]
    period_count: int
    buckets: Mapping[KeyHour, Buckets] = field(default_factory=dict)


SeedLoader = Callable[[], Seed]


@dataclass(frozen=True, slots=True)
class Tally:
    """What the meter did. ``used``: requests counted in the window, this one included
    when admitted. ``tat``: the burst bucket's state after the decision. ``hour``: the
    hour number the meter used (never behind a clock it saw earlier). ``hours``: the
    counts of hours ``hour - 23 .. hour``, returned with a quota refusal on a rolling
    day (for Retry-After)."""

    outcome: Outcome
    used: int
    tat: int
    hour: int
    hours: tuple[int, ...] = ()

    def hour_counts(self) -> dict[int, int]:
        first = self.hour - DAY_HOURS + 1
        return {first + i: n for i, n in enumerate(self.hours) if n}


class Meter(Protocol):
    checks_epochs: bool  # whether ``consume`` checks an ``epoch`` (keys/cache.py)

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
    ) -> Tally:
        """Decide, count if admitted, count the outcome in ``key_id``'s bucket of the
        hour, and return the tally; with ``peek`` only report the account's usage.
        With ``epoch`` (a meter whose ``checks_epochs``), decide only while it is the
        account's current epoch, else return ``Outcome.STALE`` with nothing written.
        Raises ``MeterUnavailable`` when the store is unreachable."""
        ...

    def refund(self, *, account_id: int, key_id: int, hour: int) -> bool:
        """Give back one request of ``key_id`` admitted in ``hour`` (it was answered
        5xx): one less in the quota, one more in the key's ``failed`` bucket. False
        when there is nothing to give back. Raises ``MeterUnavailable``."""
        ...

    def snapshot(self, *, sweep: bool = False) -> list[AccountUsage]:
        """The buckets of every account this meter saw since the last snapshot (with
        ``sweep``, of every account it holds). Raises ``MeterUnavailable``; the
        accounts are then remembered for the next snapshot."""
        ...

    def remember(self, account_ids: Iterable[int]) -> None:
        """Put accounts back for the next snapshot (their copy failed)."""
        ...

    def prune(self, usages: Iterable[AccountUsage], *, before_hour: int) -> None:
        """Forget the buckets of hours before ``before_hour`` and the latest uses, as
        ``usages`` (already written to the history) hold them, unless they moved since."""
        ...


# --- Redis ---------------------------------------------------------------------------


class RedisMeter:
    """The meter on Redis: one ``consume.lua`` call per decision (a second one, with the
    seed, only when the account has no state)."""

    checks_epochs = True

    def __init__(self, client: Any, *, prefix: str | None = None) -> None:
        """``prefix`` starts every key (default ``settings.REDIS_KEY_PREFIX`` and ":")."""
        self.client = client
        self.prefix = f"{settings.REDIS_KEY_PREFIX}:" if prefix is None else prefix
        self.script = client.register_script(LUA_PATH.read_text())
        self.refund_script = client.register_script(REFUND_LUA_PATH.read_text())
        self.prune_script = client.register_script(PRUNE_LUA_PATH.read_text())
        self._seen: set[int] = set()
        self._seen_lock = threading.Lock()

    def state_key(self, account_id: int) -> str:
        return f"{self.prefix}meter:{{a{account_id}}}"

    def _account_of(self, state_key: str) -> int | None:
        head = f"{self.prefix}meter:{{a"
        if not (state_key.startswith(head) and state_key.endswith("}")):
            return None
        number = state_key[len(head) : -1]
        return int(number) if number.isdigit() else None

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
    ) -> Tally:
        check = epoch or ""
        args: list[Any] = [
            "peek" if peek else "consume",
            now_us,
            window.quota,
            -1 if window.start_hour is None else window.start_hour,
            bucket.interval_us if bucket else 0,
            bucket.size if bucket else 0,
            STATE_TTL_SECONDS,
            0 if peek else key_id,
        ]
        if not peek:
            with self._seen_lock:
                self._seen.add(account_id)
        tally = self._run(account_id, [*args, 0, check])
        if tally.outcome == Outcome.NEED_SEED:
            loaded = seed()
            pairs: list[Any] = [v for hour, n in loaded.hours.items() if n for v in (hour, n)]
            for (kid, hour), counts in loaded.buckets.items():
                pairs += [v for name, n in counts.fields(kid, hour) if n for v in (name, n)]
            tally = self._run(account_id, [*args, 1, loaded.period_count, *pairs, check])
        return tally

    def _run(self, account_id: int, args: list[Any]) -> Tally:
        # The epoch (issue 13) is under the state's hash tag: one Cluster slot.
        keys = [self.state_key(account_id), epoch_key(account_id)]
        reply = self._call(self.script, keys, args)
        outcome, used, tat, hour, *hours = (int(v) for v in reply)
        return Tally(Outcome(outcome), used, tat, hour, tuple(hours))

    def _call(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        from foodservice.core.redis import UNREACHABLE

        try:
            return script(keys=keys, args=args)
        except UNREACHABLE as exc:
            metrics.redis_error(component="meter")
            raise MeterUnavailable(str(exc)) from exc

    def refund(self, *, account_id: int, key_id: int, hour: int) -> bool:
        args = [key_id, hour, STATE_TTL_SECONDS]
        return bool(self._call(self.refund_script, [self.state_key(account_id)], args))

    def remember(self, account_ids: Iterable[int]) -> None:
        with self._seen_lock:
            self._seen.update(account_ids)

    def snapshot(self, *, sweep: bool = False) -> list[AccountUsage]:
        from foodservice.core.redis import UNREACHABLE

        with self._seen_lock:
            ids, self._seen = self._seen, set()
        try:
            if sweep and self.client.set(f"{self.prefix}meter-sweep", 1, nx=True, px=SWEEP_LOCK_MS):
                pattern = f"{self.prefix}meter:{{a*}}"
                for name in self.client.scan_iter(match=pattern, count=SCAN_COUNT):
                    account_id = self._account_of(name.decode())
                    if account_id is not None:
                        ids.add(account_id)
            order = sorted(ids)
            pipe = self.client.pipeline(transaction=False)
            for account_id in order:
                pipe.hgetall(self.state_key(account_id))
            replies = pipe.execute() if order else []
        except UNREACHABLE as exc:
            self.remember(ids)
            metrics.redis_error(component="meter")
            raise MeterUnavailable(str(exc)) from exc
        usages = []
        for account_id, fields in zip(order, replies, strict=True):
            usage = _parse_fields(account_id, fields)
            if usage.buckets or usage.last_used:
                usages.append(usage)
        return usages

    def prune(self, usages: Iterable[AccountUsage], *, before_hour: int) -> None:
        from foodservice.core.redis import UNREACHABLE

        pipe = self.client.pipeline(transaction=False)
        queued = False
        for usage in usages:
            args: list[Any] = []
            for (kid, hour), counts in usage.buckets.items():
                if hour < before_hour:
                    fields = counts.fields(kid, hour)
                    args += [len(fields), *(v for pair in fields for v in pair)]
            for kid, at in usage.last_used.items():
                args += [1, f"l:{kid}", at]
            if args:
                self.prune_script(keys=[self.state_key(usage.account_id)], args=args, client=pipe)
                queued = True
        if not queued:
            return
        try:
            pipe.execute()
        except UNREACHABLE as exc:
            metrics.redis_error(component="meter")
            raise MeterUnavailable(str(exc)) from exc


def _parse_fields(account_id: int, fields: Mapping[bytes, bytes]) -> AccountUsage:
    """The buckets and latest uses among the fields of an account's state hash."""
    raw: dict[KeyHour, dict[str, int]] = {}
    last_used: dict[int, int] = {}
    for name_b, value_b in fields.items():
        name = name_b.decode()
        if name[1:2] != ":":
            continue
        kind, _, rest = name.partition(":")
        if kind == "l":
            last_used[int(rest)] = int(value_b)
            continue
        kid, _, hour = rest.partition(":")
        raw.setdefault((int(kid), int(hour)), {})[kind] = int(value_b)
    by_key_hour = {
        kh: Buckets(c.get("a", 0), c.get("f", 0), c.get("q", 0), c.get("b", 0))
        for kh, c in raw.items()
    }
    return AccountUsage(account_id, by_key_hour, last_used)


# --- In-process ----------------------------------------------------------------------


@dataclass(slots=True)
class _State:
    t: int = 0
    tat: int = 0
    ps: int = -1
    pn: int = 0
    ring: dict[int, tuple[int, int]] = field(default_factory=dict)  # slot -> (hour, n)
    # (key id, hour) -> [admitted, failed, quota 429s, burst 429s]; key id -> latest use
    buckets: dict[KeyHour, list[int]] = field(default_factory=dict)
    last_used: dict[int, int] = field(default_factory=dict)


class MemoryMeter:
    """The meter in this process's memory, under one lock: the same algorithm as
    ``consume.lua`` (and ``refund.lua``, ``prune.lua``), line for line."""

    checks_epochs = False  # the embedded default keeps no principals in process

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
            return _step(self._states[account_id], window, bucket, now_us, peek, key_id)

    def refund(self, *, account_id: int, key_id: int, hour: int) -> bool:
        with self._lock:
            state = self._states.get(account_id)
            counts = None if state is None else state.buckets.get((key_id, hour))
            if state is None or counts is None or counts[0] <= counts[1]:
                return False
            counts[1] += 1
            slot_hour, slot_n = state.ring.get(hour % DAY_HOURS, (None, 0))
            if slot_hour == hour and slot_n > 0:
                state.ring[hour % DAY_HOURS] = (hour, slot_n - 1)
            if 0 <= state.ps <= hour and state.pn > 0:
                state.pn -= 1
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
    state = _State(t=now_us, ps=-1 if window.start_hour is None else window.start_hour)
    state.pn = seed.period_count
    for hour, n in seed.hours.items():
        if n:
            state.ring[hour % DAY_HOURS] = (hour, n)
    for key_hour, counts in seed.buckets.items():
        state.buckets[key_hour] = [counts.admitted, counts.failed, counts.quota, counts.burst]
    return state


def _step(
    state: _State, window: Window, bucket: Bucket | None, now_us: int, peek: bool, key_id: int
) -> Tally:
    now_us = max(now_us, state.t)  # time never goes back (see consume.lua)
    hour = now_us // HOUR_US
    counts = [0] * DAY_HOURS
    for h, n in state.ring.values():
        if hour - DAY_HOURS < h <= hour:
            counts[h - hour + DAY_HOURS - 1] = n
    ps, pn = state.ps, state.pn
    if window.start_hour is not None:
        if window.start_hour > ps:  # a period only ever moves forward
            ps = window.start_hour
            pn = sum(n for k, n in enumerate(counts) if hour - DAY_HOURS + 1 + k >= ps)
        used = pn
    else:
        used = sum(counts)
    day_counts = tuple(counts) if window.start_hour is None else ()
    if peek:
        return Tally(Outcome.PEEKED, used, state.tat, hour, day_counts)
    key_counts = state.buckets.setdefault((key_id, hour), [0, 0, 0, 0])
    if used >= window.quota:
        key_counts[2] += 1
        return Tally(Outcome.QUOTA, used, state.tat, hour, day_counts)
    tat = state.tat
    if bucket is not None:
        taken = buckets.take(bucket, tat, now_us)
        if taken is None:
            key_counts[3] += 1
            return Tally(Outcome.BURST, used, max(tat, now_us), hour)
        tat = taken
    key_counts[0] += 1
    state.last_used[key_id] = now_us
    slot = hour % DAY_HOURS
    slot_hour, slot_n = state.ring.get(slot, (None, 0))
    state.ring[slot] = (hour, slot_n + 1 if slot_hour == hour else 1)
    state.t, state.tat, state.ps, state.pn = now_us, tat, ps, pn + 1
    return Tally(Outcome.ADMITTED, used + 1, tat, hour)


# --- Selection -----------------------------------------------------------------------


@cache
def _meter_for(backend: str) -> Meter:
    if backend == "redis":
        return RedisMeter(redis_client(settings.REDIS_URL))
    return MemoryMeter()


def redis_client(url: str) -> Any:
    """The meter's own Redis client for ``url`` in the configured topology (one server,
    Cluster or Sentinel: foodservice/core/redis.py): short timeouts, and one immediate retry
    on a broken connection only (a pooled socket that died with a Redis restart), never
    on a timeout, where the script may have run and a retry could count a request twice.
    redis-py's default (10 retries with backoff) would stall every request for seconds
    while Redis is down, before the failure policy could answer."""
    from foodservice.core.redis import connect, current_topology

    return connect(
        current_topology(url), timeout=TIMEOUT_SECONDS, connect_timeout=CONNECT_TIMEOUT_SECONDS
    )


def get_meter() -> Meter:
    """The process's meter, per ``settings.METER_BACKEND``."""
    return _meter_for(settings.METER_BACKEND)


def meter_reset() -> None:
    """Drop the process's meter, so the next ``get_meter`` builds a fresh one for the
    current settings (an in-process meter then starts empty, as after a restart)."""
    _meter_for.cache_clear()
