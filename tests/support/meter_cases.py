"""The meter's case table (``CASES``) and how a case is run (``run``): used by
tests/metering/test_parity.py on every backend and by tests/engines on a Redis Cluster."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from accounts.tiers import TierLimits
from core.calendar import hour_of, to_us
from metering.bucket import Bucket
from metering.decisions import decision_for
from metering.meter import Meter, Outcome, Seed
from metering.windows import window_at

T = datetime(2026, 3, 10, 14, 25, tzinfo=UTC)
H = hour_of(T)
TASTER = TierLimits(quota=250, window="day", rate=1.0, burst=10)
SMALL_DAY = TierLimits(quota=5, window="day", rate=None, burst=None)
SMALL_MONTH = TierLimits(quota=5, window="month", rate=None, burst=None)
SOUS = TierLimits(quota=250_000, window="month", rate=10.0, burst=50)
HEAD = TierLimits(quota=2_000_000, window="month", rate=None, burst=None)
ANCHOR = datetime(2026, 2, 20, 9, 40, tzinfo=UTC)
# Seconds from T to the renewal of a period anchored at ANCHOR (Mar 20 09:00).
RENEWAL = 9 * 86400 + 18 * 3600 + 35 * 60
A, Q, B, P = Outcome.ADMITTED, Outcome.QUOTA, Outcome.BURST, Outcome.PEEKED


@dataclass(frozen=True)
class Step:
    """``n`` requests of ``units`` units at ``T + at`` seconds with ``limits``; the last
    one's expected outcome, ``used`` and ``retry_after``; ``admitted`` of the ``n``."""

    at: float
    expect: Outcome
    used: int
    n: int = 1
    admitted: int | None = None
    retry_after: int | None = None
    limits: TierLimits | None = None
    anchor: datetime | None = None
    peek: bool = False
    units: int = 1  # what each request costs (issue 42.3: a batch of foods)


@dataclass(frozen=True)
class Case:
    limits: TierLimits
    steps: list[Step]
    anchor: datetime | None = None
    seed: Seed = field(default_factory=lambda: Seed(hours={}, period_count=0))


CASES = {
    "taster burst: 10 at once, the 11th waits 1 s": Case(
        TASTER,
        [
            Step(0, B, 10, n=11, admitted=10, retry_after=1),
            Step(0.5, B, 10, retry_after=1),
            Step(1, A, 11),
            Step(1, B, 11, retry_after=1),
            Step(4, A, 14, n=3, admitted=3),
        ],
    ),
    "sous chef burst: 50 at once, refill 10 per second": Case(
        SOUS,
        [
            Step(0, B, 50, n=60, admitted=50, retry_after=1),
            Step(1, B, 60, n=11, admitted=10, retry_after=1),
        ],
        anchor=ANCHOR,
    ),
    "head chef is unthrottled": Case(HEAD, [Step(0, A, 300, n=300, admitted=300)], anchor=ANCHOR),
    "quota refused, then freed as the oldest hour ages out": Case(
        SMALL_DAY,
        [
            Step(0, A, 4, n=4, admitted=4),
            Step(0, Q, 5, n=3, admitted=1, retry_after=24 * 3600 - 25 * 60),
            Step(3600, Q, 5, retry_after=23 * 3600 - 25 * 60),
            Step(24 * 3600 - 25 * 60, A, 1),
        ],
    ),
    "seeded usage counts; Retry-After waits for the hour that frees it": Case(
        SMALL_DAY,
        [Step(0, Q, 6, retry_after=2 * 3600 - 25 * 60), Step(2 * 3600 - 25 * 60, A, 4)],
        seed=Seed(hours={H - 23: 1, H - 22: 2, H - 3: 3}, period_count=0),
    ),
    "hours older than 24 are ignored in a seed": Case(
        SMALL_DAY, [Step(0, A, 2)], seed=Seed(hours={H - 24: 5, H: 1}, period_count=0)
    ),
    "a refused request never counts": Case(
        SMALL_MONTH,
        [Step(0, Q, 5, n=20, admitted=5, retry_after=RENEWAL), Step(0, P, 5, peek=True)],
        anchor=ANCHOR,
    ),
    "monthly quota resets on renewal": Case(
        SMALL_MONTH,
        [
            Step(0, Q, 5, retry_after=RENEWAL),
            Step(RENEWAL - 1, Q, 5, retry_after=1),
            Step(RENEWAL - 0.25, Q, 5, retry_after=1),
            Step(RENEWAL, A, 1),
        ],
        anchor=ANCHOR,
        seed=Seed(hours={}, period_count=5),
    ),
    "upgrade between paid tiers keeps usage and renewal, raises the ceiling": Case(
        SMALL_MONTH,
        [
            Step(0, Q, 5, n=6, admitted=5, retry_after=RENEWAL),
            Step(1, A, 6, limits=SOUS, anchor=ANCHOR),
        ],
        anchor=ANCHOR,
    ),
    "taster to paid: a period from the hour of the change counts this hour only": Case(
        SMALL_DAY,
        [
            Step(-3600, A, 2, n=2, admitted=2),
            Step(0, A, 5, n=3, admitted=3),
            Step(1, A, 4, limits=SMALL_MONTH, anchor=T),
            Step(2, Q, 5, n=2, admitted=1, limits=SMALL_MONTH, anchor=T, retry_after=2_676_898),
        ],
    ),
    "paid to taster: the rolling day sees the last 24 hours of paid usage": Case(
        SMALL_MONTH,
        [
            Step(-25 * 3600, A, 1),
            Step(-3600, A, 3, n=2, admitted=2),
            Step(0, A, 3, limits=SMALL_DAY),
            Step(0, Q, 5, n=3, admitted=2, limits=SMALL_DAY, retry_after=23 * 3600 - 25 * 60),
        ],
        anchor=ANCHOR,
    ),
    "time never goes back: a lagging clock counts in the newer hour": Case(
        SMALL_DAY,
        [Step(3600 - 1, A, 1), Step(3600 - 25 * 60 + 1, A, 2), Step(-10, A, 3)],
    ),
    "a lagging clock cannot reopen a renewed period": Case(
        SMALL_MONTH,
        [
            Step(10 * 86400, A, 1, n=1),
            Step(9 * 86400, A, 2, anchor=ANCHOR - timedelta(days=31)),
        ],
        anchor=ANCHOR,
    ),
    "a batch counts its units; one that does not fit is refused whole": Case(
        SMALL_DAY,
        [
            Step(0, A, 3, units=3),
            Step(0, Q, 3, units=3, retry_after=24 * 3600 - 25 * 60),
            Step(0, A, 5, units=2),
            Step(0, Q, 5, retry_after=24 * 3600 - 25 * 60),
        ],
    ),
    "a refused batch waits until all its units fit in the rolling day": Case(
        SMALL_DAY,
        [Step(0, Q, 5, units=3, retry_after=2 * 3600 - 25 * 60), Step(3600 - 25 * 60, A, 5)],
        seed=Seed(hours={H - 23: 1, H - 22: 2, H - 3: 2}, period_count=0),
    ),
    "a batch takes a token a unit, at most the whole bucket": Case(
        TASTER,
        [
            Step(0, A, 50, units=50),
            Step(0.5, B, 50, retry_after=1),
            Step(0.5, B, 50, units=5, retry_after=5),
            Step(5, A, 55, units=5),
            Step(5, B, 55, units=12, retry_after=10),
        ],
    ),
    "a paid batch counts in the period": Case(
        SOUS,
        [
            Step(0, A, 50, units=50),
            Step(0, B, 50, units=50, retry_after=5),
            Step(5, A, 100, units=50),
        ],
        anchor=ANCHOR,
    ),
}


def run(meter: Meter, case: Case, account_id: int) -> list[tuple]:
    seeds = []

    def seed() -> Seed:
        seeds.append(1)
        return case.seed

    results = []
    for step in case.steps:
        now = T + timedelta(seconds=step.at)
        limits = step.limits or case.limits
        anchor = step.anchor if step.limits or step.anchor else case.anchor
        window = window_at(limits, anchor, now)
        bucket = Bucket.for_limits(limits)
        admitted = 0
        for _ in range(step.n):
            tally = meter.consume(
                account_id=account_id,
                window=window,
                bucket=bucket,
                now_us=to_us(now),
                seed=seed,
                peek=step.peek,
                units=step.units,
            )
            admitted += tally.outcome == Outcome.ADMITTED
        decision = decision_for(tally, window=window, bucket=bucket, now=now, units=step.units)
        results.append((tally.outcome, tally.used, admitted, decision.retry_after))
    assert len(seeds) == 1, "the history is read once, on first use"
    return results


def admitted_of(step: Step) -> int:
    if step.admitted is not None:
        return step.admitted
    return step.n if step.expect == A else 0
