"""The meter: one atomic decision per metered request (spec 7, 8), two backends; this
module holds the Redis one and picks the process's meter (``get_meter``). The contract
and its value types are in metering/meter.py.

``Meter.consume`` checks the quota and the burst bucket and counts the request as one
all-or-nothing step: admitted and counted, or refused with nothing changed, so a 429
never counts by construction and no race can admit more than the quota or the burst.

- ``RedisMeter`` runs ``lua/consume.lua`` (one EVALSHA, one round trip): shared by every
  worker on every host.
- ``MemoryMeter`` (metering/inprocess.py) runs the same algorithm under a lock:
  thread-safe, for the embedded default's single process.

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

import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings

from core import metrics
from keys.cache import epoch_key
from metering.bucket import Bucket
from metering.inprocess import MemoryMeter
from metering.meter import (
    AccountUsage,
    Buckets,
    KeyHour,
    Meter,
    MeterUnavailable,
    Outcome,
    SeedLoader,
    Tally,
)
from metering.windows import Window

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


# --- Redis ---------------------------------------------------------------------------


class RedisMeter:
    """The meter on Redis: one ``consume.lua`` call per decision (a second one, with the
    seed, only when the account has no state)."""

    checks_epochs = True

    def __init__(self, client: Any, *, prefix: str | None = None) -> None:
        """``prefix`` starts every key (default ``settings.REDIS_KEY_PREFIX`` and ":")."""
        from redis.cluster import RedisCluster

        self.client = client
        self.prefix = f"{settings.REDIS_KEY_PREFIX}:" if prefix is None else prefix
        # A cluster refuses scripts in a pipeline ("Calling pipelined function evalsha
        # is blocked"): prune calls its script once per account there, and the meter
        # carries nothing (a carried key also lives in another slot than the account's).
        self.on_cluster = isinstance(client, RedisCluster)
        self.script = client.register_script(LUA_PATH.read_text())
        self.refund_script = client.register_script(REFUND_LUA_PATH.read_text())
        self.prune_script = client.register_script(PRUNE_LUA_PATH.read_text())
        self._seen: set[int] = set()
        self._seen_lock = threading.Lock()

    carries = True

    def state_key(self, account_id: int) -> str:
        return f"{self.prefix}meter:{{a{account_id}}}"

    def _account_of(self, state_key: str) -> int | None:
        head = f"{self.prefix}meter:{{a"
        if not (state_key.startswith(head) and state_key.endswith("}")):
            return None
        number = state_key[len(head) : -1]
        # ASCII digits only: "²" is a digit to str.isdigit() and a ValueError to int()
        return int(number) if number.isascii() and number.isdigit() else None

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
            units,
        ]
        if not peek:
            with self._seen_lock:
                self._seen.add(account_id)
        tally = self._run(account_id, [*args, 0, check], carry=carry)
        if tally.outcome == Outcome.NEED_SEED:
            loaded = seed()
            pairs: list[Any] = [v for hour, n in loaded.hours.items() if n for v in (hour, n)]
            for (kid, hour), counts in loaded.buckets.items():
                pairs += [v for name, n in counts.fields(kid, hour) if n for v in (name, n)]
            seeded = self._run(account_id, [*args, 1, loaded.period_count, *pairs, check])
            tally = replace(seeded, carried=tally.carried)
        return tally

    def _run(self, account_id: int, args: list[Any], *, carry: str | None = None) -> Tally:
        # The epoch (issue 13) is under the state's hash tag: one Cluster slot.
        keys = [self.state_key(account_id), epoch_key(account_id)]
        carried = None
        if not self.on_cluster:
            reply, carried = self._call_direct(keys, args, carry)
        else:
            reply = self._call(self.script, keys, args)
            if carry is not None:
                carried = self._get_quietly(carry)
        outcome, used, tat, hour, *hours = (int(v) for v in reply)
        return Tally(Outcome(outcome), used, tat, hour, tuple(hours), carried)

    def _call_direct(self, keys: list[str], args: list[Any], carry: str | None) -> tuple[Any, Any]:
        """The script's reply and the value of ``carry`` (None: no value asked), in one
        round trip: EVALSHA and GET written together on one pooled connection, then both
        replies read.

        Not redis-py's ``Pipeline``: its command stack, per-command option handling and
        reply callbacks cost 25-60 us more CPU per exchange (bench/RESULTS.md, "Issue
        41.2: records stored compressed, and the meter's exchange without a Pipeline"),
        for two commands whose replies need none of them. Nor, for the script alone,
        ``Script.__call__`` through ``execute_command`` (its option handling and reply
        callback: ~10-25 us more per call; bench/RESULTS.md, "Issue 41.1: the budget's
        transaction in one message, and the meter's every call written directly"). The
        connection's own ``Retry`` (core/redis.py: one immediate retry on a broken
        connection, never on a timeout) wraps the exchange as it wraps a pipeline's.
        ``Script`` would first ask SCRIPT EXISTS; the script is loaded only when Redis
        does not know it (a restarted or flushed server): then it runs alone, once."""
        from redis.exceptions import NoScriptError

        commands: list[tuple[Any, ...]] = [("EVALSHA", self.script.sha, len(keys), *keys, *args)]
        if carry is not None:
            commands.append(("GET", carry))
        pool = self.client.connection_pool
        with _reaching_redis():
            conn = pool.get_connection()
            try:
                reply, *carried = conn.retry.call_with_retry(
                    lambda: _exchange(conn, commands), lambda error: conn.disconnect()
                )
            finally:
                pool.release(conn)
        if isinstance(reply, NoScriptError):
            reply = self._call(self.script, keys, args)  # Script loads it, then runs it
        elif isinstance(reply, Exception):
            raise reply
        value = carried[0] if carried else None
        return reply, None if isinstance(value, Exception) else value

    def _get_quietly(self, key: str) -> Any:
        """``key``'s value, or None when Redis does not answer it: a carried value is
        an optimisation, never a reason to fail the request the script decided."""
        try:
            with _reaching_redis():
                return self.client.get(key)
        except MeterUnavailable:
            return None

    def _call(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        with _reaching_redis():
            return script(keys=keys, args=args)

    def refund(self, *, account_id: int, key_id: int, hour: int, units: int = 1) -> bool:
        args = [key_id, hour, STATE_TTL_SECONDS, units]
        return bool(self._call(self.refund_script, [self.state_key(account_id)], args))

    def remember(self, account_ids: Iterable[int]) -> None:
        with self._seen_lock:
            self._seen.update(account_ids)

    def snapshot(self, *, sweep: bool = False) -> list[AccountUsage]:
        with self._seen_lock:
            ids, self._seen = self._seen, set()
        try:
            with _reaching_redis():
                order, replies = self._read_states(ids, sweep=sweep)
        except MeterUnavailable:
            self.remember(ids)
            raise
        usages = []
        for account_id, fields in zip(order, replies, strict=True):
            usage = _parse_fields(account_id, fields)
            if usage.buckets or usage.last_used:
                usages.append(usage)
        return usages

    def _read_states(self, ids: set[int], *, sweep: bool) -> tuple[list[int], list[Any]]:
        """``ids`` in order (with ``sweep``, every account's too: one sweep at a time
        across workers) and their state hashes."""
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
        return order, (pipe.execute() if order else [])

    def prune(self, usages: Iterable[AccountUsage], *, before_hour: int) -> None:
        """Forget the copied buckets of hours before ``before_hour`` (prune.lua), in
        one pipeline; on a Redis Cluster, which refuses scripts in a pipeline ("Calling
        pipelined function evalsha is blocked"), one call per account."""
        calls: list[tuple[list[str], list[Any]]] = []
        for usage in usages:
            args: list[Any] = []
            for (kid, hour), counts in usage.buckets.items():
                if hour < before_hour:
                    fields = counts.fields(kid, hour)
                    args += [len(fields), *(v for pair in fields for v in pair)]
            for kid, at in usage.last_used.items():
                args += [1, f"l:{kid}", at]
            if args:
                calls.append(([self.state_key(usage.account_id)], args))
        if not calls:
            return
        with _reaching_redis():
            if self.on_cluster:
                for keys, args in calls:
                    self.prune_script(keys=keys, args=args)
                return
            pipe = self.client.pipeline(transaction=False)
            for keys, args in calls:
                self.prune_script(keys=keys, args=args, client=pipe)
            pipe.execute()


def _exchange(conn: Any, commands: list[tuple[Any, ...]]) -> list[Any]:
    """Send ``commands`` in one write on ``conn`` and read every reply, an error reply
    as its exception (read all before returning: the pooled socket never desyncs)."""
    from redis.exceptions import ResponseError

    conn.send_packed_command(conn.pack_commands(commands))
    replies: list[Any] = []
    for _ in commands:
        try:
            replies.append(conn.read_response())
        except ResponseError as error:
            replies.append(error)
    return replies


@contextmanager
def _reaching_redis() -> Iterator[None]:
    """Redis unreachable inside (a refused connection, a timeout, a cluster without the
    slot's master) is counted in the metrics and raised as ``MeterUnavailable``."""
    from core.redis import UNREACHABLE

    try:
        yield
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


# --- Selection -----------------------------------------------------------------------


@cache
def _meter_for(backend: str) -> Meter:
    if backend == "redis":
        return RedisMeter(redis_client(settings.REDIS_URL))
    return MemoryMeter()


def redis_client(url: str) -> Any:
    """The meter's own Redis client for ``url`` in the configured topology (one server,
    Cluster or Sentinel: core/redis.py): short timeouts, and one immediate retry
    on a broken connection only (a pooled socket that died with a Redis restart), never
    on a timeout, where the script may have run and a retry could count a request twice.
    redis-py's default (10 retries with backoff) would stall every request for seconds
    while Redis is down, before the failure policy could answer."""
    from core.redis import connect, current_topology

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
