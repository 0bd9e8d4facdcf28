"""metering/headers.py: the RateLimit headers of a decision (spec 8.4, IETF draft)."""

from __future__ import annotations

from datetime import UTC, datetime

from accounts.tiers import TierLimits
from core.calendar import hour_of, to_us
from metering.bucket import Bucket
from metering.decisions import decision_for
from metering.headers import ratelimit_headers
from metering.meter import Outcome, Tally
from metering.windows import window_at

NOW = datetime(2026, 3, 10, 14, 25, tzinfo=UTC)


def headers_for(limits: TierLimits, used: int, tat: int, anchor: datetime | None = None):
    window = window_at(limits, anchor, NOW)
    tally = Tally(Outcome.ADMITTED, used, tat, hour_of(NOW))
    return ratelimit_headers(
        decision_for(tally, window=window, bucket=Bucket.for_limits(limits), now=NOW)
    )


def test_taster_headers_count_to_the_next_hour_and_describe_both_policies():
    limits = TierLimits(quota=250, window="day", rate=1.0, burst=10)
    headers = headers_for(limits, used=40, tat=to_us(NOW) + 3_000_000)
    assert headers == {
        "RateLimit-Limit": "250",
        "RateLimit-Remaining": "210",
        "RateLimit-Reset": "2100",
        "X-RateLimit-Reset": str(int(datetime(2026, 3, 10, 15, tzinfo=UTC).timestamp())),
        "RateLimit-Policy": '"quota";q=250;w=86400, "burst";q=10;w=10',
        "RateLimit": '"quota";r=210;t=2100, "burst";r=7;t=3',
    }


def test_paid_headers_count_to_the_renewal():
    limits = TierLimits(quota=250_000, window="month", rate=10.0, burst=50)
    anchor = datetime(2026, 2, 28, 23, 10, tzinfo=UTC)
    headers = headers_for(limits, used=1, tat=to_us(NOW), anchor=anchor)
    renewal = datetime(2026, 3, 28, 23, tzinfo=UTC)
    assert headers["RateLimit-Reset"] == str(int((renewal - NOW).total_seconds()))
    assert headers["X-RateLimit-Reset"] == str(int(renewal.timestamp()))
    assert headers["RateLimit-Policy"] == '"quota";q=250000;w=2419200, "burst";q=50;w=5'
    assert headers["RateLimit"].endswith('"burst";r=50;t=0')


def test_unthrottled_tier_has_no_burst_policy_and_remaining_never_negative():
    limits = TierLimits(quota=10, window="month", rate=None, burst=None)
    headers = headers_for(limits, used=12, tat=0, anchor=NOW)
    assert headers["RateLimit-Remaining"] == "0"
    assert "burst" not in headers["RateLimit-Policy"]
    assert headers["RateLimit"] == f'"quota";r=0;t={headers["RateLimit-Reset"]}'


def test_an_empty_bucket_gives_the_wait_for_one_token_as_t():
    limits = TierLimits(quota=250, window="day", rate=1.0, burst=10)
    headers = headers_for(limits, used=10, tat=to_us(NOW) + 10_000_000)
    assert headers["RateLimit"] == '"quota";r=240;t=2100, "burst";r=0;t=1'


def test_a_spent_rolling_day_gives_the_wait_until_room_as_t():
    limits = TierLimits(quota=3, window="day", rate=None, burst=None)
    hour = hour_of(NOW)
    counts = (0,) * 20 + (1, 0, 0, 2)  # hour - 3: one request; this hour: two
    window = window_at(limits, None, NOW)
    tally = Tally(Outcome.ADMITTED, 3, 0, hour, counts)
    headers = ratelimit_headers(decision_for(tally, window=window, bucket=None, now=NOW))
    frees = datetime(2026, 3, 11, 11, tzinfo=UTC)  # 11:00 today ages out at 11:00 tomorrow
    assert headers["RateLimit"] == f'"quota";r=0;t={int((frees - NOW).total_seconds())}'
    # Nothing left: allowance next frees up when the 11:00 hour ages out (issue 24.9).
    assert headers["RateLimit-Reset"] == str(int((frees - NOW).total_seconds()))
    assert headers["X-RateLimit-Reset"] == str(int(frees.timestamp()))
