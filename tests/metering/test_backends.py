"""The Redis meter's own reading of its key names (metering/backends.py)."""

from __future__ import annotations

import pytest

from metering.backends import RedisMeter, redis_client


@pytest.mark.parametrize(
    ("name", "account_id"),
    [("{a12}", 12), ("{a007}", 7), ("{a²}", None), ("{a①}", None), ("{a\u0661\u0662}", None),
     ("{a}", None), ("{a-1}", None), ("{a12", None), ("{b12}", None)],
)  # fmt: skip
def test_a_sweep_reads_only_account_ids_in_ascii_digits(name, account_id):
    """Issue 36.3: a state key named with a digit ``str.isdigit()`` accepts and ``int()``
    refuses ("²") raised ValueError out of every sweep; it is passed over, like any
    other name that is not an account's state. No Redis is reached."""
    meter = RedisMeter(redis_client("redis://127.0.0.1:1/0"), prefix="p:")
    assert meter._account_of(f"p:meter:{name}") == account_id


@pytest.mark.django_db
@pytest.mark.parametrize("carry", [None, "carried-value"])
def test_a_redis_that_forgot_the_script_still_counts_each_request_once(carry):
    """Every consume on a single Redis writes its EVALSHA directly (issue 41.2): after
    SCRIPT FLUSH (a restarted or flushed server) the script is loaded and run once, and
    the count goes on from where it was, with or without a carried value."""
    from django.conf import settings

    from core.calendar import to_us
    from metering.bucket import Bucket
    from metering.meter import Outcome, Seed
    from metering.windows import window_at
    from tests.conftest import T0
    from tests.support.meter_cases import SMALL_DAY

    if not settings.REDIS_URL:
        pytest.skip("the Redis meter runs in the PostgreSQL + Redis pass")
    client = redis_client(settings.REDIS_URL)
    meter = RedisMeter(client)
    if carry:
        client.set(carry, b"kept")
    account_id = 7300 + (carry is not None)

    def consume():
        return meter.consume(
            account_id=account_id,
            window=window_at(SMALL_DAY, None, T0),
            bucket=Bucket.for_limits(SMALL_DAY),
            now_us=to_us(T0),
            seed=lambda: Seed(hours={}, period_count=0),
            key_id=1,
            carry=carry,
        )

    first = consume()
    client.script_flush()
    second = consume()
    assert (first.outcome, second.outcome) == (Outcome.ADMITTED, Outcome.ADMITTED)
    assert (first.used, second.used) == (1, 2)
    assert second.carried == (b"kept" if carry else None)
