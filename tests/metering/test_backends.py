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
