"""What a meter is: its contract (``Meter``) and the values it takes and returns.

Both meters (``metering.backends.RedisMeter`` on ``lua/consume.lua``, and
``metering.inprocess.MemoryMeter``, its in-process mirror) implement ``Meter``; the rest of
metering (services, selectors, history, throttling) reads these types only.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from core.calendar import DAY_HOURS
from metering.bucket import Bucket
from metering.windows import Window


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
    # The value of the ``carry`` key read in the decision's round trip (None: no such
    # key, nothing asked, or a meter that carries nothing).
    carried: bytes | None = None

    def hour_counts(self) -> dict[int, int]:
        first = self.hour - DAY_HOURS + 1
        return {first + i: n for i, n in enumerate(self.hours) if n}


class Meter(Protocol):
    checks_epochs: bool  # whether ``consume`` checks an ``epoch`` (keys/cache.py)
    # Whether ``consume`` reads a ``carry`` key in the same round trip as its decision
    # (issue 28.5: a shared record read at no extra round trip).
    carries: bool

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
        """Decide, count if admitted, count the outcome in ``key_id``'s bucket of the
        hour, and return the tally; with ``peek`` only report the account's usage.
        With ``epoch`` (a meter whose ``checks_epochs``), decide only while it is the
        account's current epoch, else return ``Outcome.STALE`` with nothing written.
        With ``carry`` (a meter that ``carries``), also read that key of the store in
        the same round trip, whatever the decision, into ``Tally.carried``.
        ``units`` (issue 42.3: a batch of foods, one a food) is what the request costs:
        admitted only when all of them fit in the quota and the burst bucket holds
        ``bucket.tokens_for(units)`` tokens, then all counted; refused whole otherwise.
        Raises ``MeterUnavailable`` when the store is unreachable."""
        ...

    def refund(self, *, account_id: int, key_id: int, hour: int, units: int = 1) -> bool:
        """Give back one request of ``key_id`` admitted in ``hour`` (it was answered
        5xx), counted for ``units``: that many less in the quota, more in the key's
        ``failed`` bucket. False when there is nothing to give back. Raises ``MeterUnavailable``."""
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
