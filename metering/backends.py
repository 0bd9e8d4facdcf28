"""The meter: one atomic decision per metered request (spec 7, 8), two backends.

``Meter.consume`` checks the quota and the burst bucket and counts the request as one
all-or-nothing step: admitted and counted, or refused with nothing changed, so a 429
never counts by construction and no race can admit more than the quota or the burst.

- ``RedisMeter`` runs ``lua/consume.lua`` (one EVALSHA, one round trip): shared by every
  worker on every host.
- ``MemoryMeter`` runs the same algorithm under a lock: thread-safe, for the embedded
  default's single process.

Both keep per account: the burst bucket, 24 hourly counts and the count of the current
billing period. When an account has no state (first use, Redis restarted or failed
over, the state expired while idle, the process restarted) both call ``seed`` for the
account's usage rebuilt from the durable history, and install it unless a concurrent
request already did.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from django.conf import settings

from foodservice import metrics
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
class Seed:
    """An account's usage rebuilt from the durable history: ``hours`` (hour number ->
    requests) for the last 24 hours, and ``period_count``, the requests since the
    window's ``start_hour`` (0 on a rolling day)."""

    hours: Mapping[int, int]
    period_count: int


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
        epoch: str | None = None,
    ) -> Tally:
        """Decide, count if admitted, and return the tally; with ``peek`` only report the
        account's usage. With ``epoch`` (a meter whose ``checks_epochs``), decide only
        while it is the account's current epoch, else return ``Outcome.STALE``. Raises
        ``MeterUnavailable`` when the store is unreachable."""
        ...


# --- Redis ---------------------------------------------------------------------------


class RedisMeter:
    """The meter on Redis: one ``consume.lua`` call per decision (a second one, with the
    seed, only when the account has no state)."""

    checks_epochs = True

    def __init__(self, client: Any, *, prefix: str = "fs:") -> None:
        self.client = client
        self.prefix = prefix
        self.script = client.register_script(LUA_PATH.read_text())

    def state_key(self, account_id: int) -> str:
        return f"{self.prefix}meter:{{a{account_id}}}"

    def consume(
        self,
        *,
        account_id: int,
        window: Window,
        bucket: Bucket | None,
        now_us: int,
        seed: SeedLoader,
        peek: bool = False,
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
        ]
        tally = self._run(account_id, [*args, 0, check])
        if tally.outcome == Outcome.NEED_SEED:
            loaded = seed()
            pairs = [v for hour, n in loaded.hours.items() if n for v in (hour, n)]
            tally = self._run(account_id, [*args, 1, loaded.period_count, *pairs, check])
        return tally

    def _run(self, account_id: int, args: list[Any]) -> Tally:
        import redis

        keys = [self.state_key(account_id), epoch_key(account_id)]
        try:
            reply = self.script(keys=keys, args=args)
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            metrics.redis_error(component="meter")
            raise MeterUnavailable(str(exc)) from exc
        outcome, used, tat, hour, *hours = (int(v) for v in reply)
        return Tally(Outcome(outcome), used, tat, hour, tuple(hours))


# --- In-process ----------------------------------------------------------------------


@dataclass(slots=True)
class _State:
    t: int = 0
    tat: int = 0
    ps: int = -1
    pn: int = 0
    ring: dict[int, tuple[int, int]] = field(default_factory=dict)  # slot -> (hour, n)


class MemoryMeter:
    """The meter in this process's memory, under one lock: the same algorithm as
    ``consume.lua``, line for line."""

    checks_epochs = False  # the embedded default keeps no principals in process

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[int, _State] = {}

    def reset(self) -> None:
        """Forget every account (as a restart would); usage is rebuilt from history."""
        with self._lock:
            self._states.clear()

    def consume(
        self,
        *,
        account_id: int,
        window: Window,
        bucket: Bucket | None,
        now_us: int,
        seed: SeedLoader,
        peek: bool = False,
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
            return _step(self._states[account_id], window, bucket, now_us, peek)


def _seeded(seed: Seed, window: Window, now_us: int) -> _State:
    state = _State(t=now_us, ps=-1 if window.start_hour is None else window.start_hour)
    state.pn = seed.period_count
    for hour, n in seed.hours.items():
        if n:
            state.ring[hour % DAY_HOURS] = (hour, n)
    return state


def _step(state: _State, window: Window, bucket: Bucket | None, now_us: int, peek: bool) -> Tally:
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
    if peek:
        return Tally(Outcome.PEEKED, used, state.tat, hour)
    if used >= window.quota:
        day_counts = tuple(counts) if window.start_hour is None else ()
        return Tally(Outcome.QUOTA, used, state.tat, hour, day_counts)
    tat = state.tat
    if bucket is not None:
        taken = buckets.take(bucket, tat, now_us)
        if taken is None:
            return Tally(Outcome.BURST, used, max(tat, now_us), hour)
        tat = taken
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
    """The meter's own Redis client: short timeouts, and one immediate retry on a broken
    connection only (a pooled socket that died with a Redis restart), never on a
    timeout, where the script may have run and a retry could count a request twice.
    redis-py's default (10 retries with backoff) would stall every request for seconds
    while Redis is down, before the failure policy could answer."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis.from_url(
        url,
        socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
        socket_timeout=TIMEOUT_SECONDS,
        retry=Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,)),
    )


def get_meter() -> Meter:
    """The process's meter, per ``settings.METER_BACKEND``."""
    return _meter_for(settings.METER_BACKEND)


def meter_reset() -> None:
    """Drop the process's meter, so the next ``get_meter`` builds a fresh one for the
    current settings (an in-process meter then starts empty, as after a restart)."""
    _meter_for.cache_clear()
