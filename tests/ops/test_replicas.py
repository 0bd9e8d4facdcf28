"""Issue 30.4: a replica's replay lag from WAL positions (``foodservice.ops.replicas``); the
engine test (tests/engines/test_replica_lag.py) pauses a real replica's replay."""

from __future__ import annotations

import math

from foodservice.ops.replicas import replay_lag

# The primary's WAL position as the checks read it: (seconds, byte offset).
IDLE = [(0.0, 5000), (2.0, 5000), (4.0, 5000)]
BUSY = [(0.0, 5000), (2.0, 7000), (4.0, 9000), (6.0, 11000)]


def test_an_idle_primary_has_no_lag_whatever_the_time_since_the_last_commit():
    assert replay_lag(IDLE, replayed=5000, now=4.0) == (0.0, 0.0)
    # Hours after the last write, a replica that holds it is not late.
    assert replay_lag([(0.0, 5000), (3600.0, 5000)], replayed=5000, now=3600.0) == (0.0, 0.0)


def test_a_replica_that_replayed_the_current_position_has_no_lag():
    assert replay_lag(BUSY, replayed=11000, now=6.0) == (0.0, 0.0)


def test_lag_is_bounded_by_the_newest_replayed_and_the_oldest_waiting_position():
    # Replayed what the primary had at 2 s, not what it had at 4 s: behind by 2 to 4 s.
    assert replay_lag(BUSY, replayed=7500, now=6.0) == (2.0, 4.0)


def test_a_paused_replica_on_a_busy_primary_is_at_least_as_late_as_its_pause():
    at_least, at_most = replay_lag(BUSY, replayed=4000, now=6.0)
    assert at_least == 6.0
    assert at_most == math.inf


def test_a_single_position_not_replayed_tells_only_that_the_lag_is_unknown():
    assert replay_lag([(10.0, 9000)], replayed=8000, now=10.0) == (0.0, math.inf)


def test_a_pinned_block_reads_the_catalogue_from_one_database_only():
    """Issue 36.1: a budget's statement timeout lives in one transaction on one database,
    so the router must not pick another replica per query inside it."""
    from catalogue.models import Food
    from catalogue.routing import catalogue_read_alias, pinned, pinned_reads
    from foodservice.ops import replicas

    router = replicas.ReplicaRouter()
    token = replicas._reads_allowed.set(True)
    try:
        assert pinned() is None
        with pinned_reads("replica2"):
            assert catalogue_read_alias() == "replica2"
            assert {router.db_for_read(Food) for _ in range(20)} == {"replica2"}
        assert pinned() is None
    finally:
        replicas._reads_allowed.reset(token)
    with pinned_reads("replica2"):  # a POST: the primary, whatever is pinned
        assert router.db_for_read(Food) is None
