"""core.processes: a pool's children end on terminate() whatever handlers the parent set
(a failing pool load once hung make test in Pool.terminate())."""

from __future__ import annotations

import signal

import pytest

from core.processes import STOPS, forked_pool


def _ends_at_once(signum: int) -> bool:
    """In a pool's child: whether ``signum`` takes its default action there."""
    return signal.getsignal(signum) is signal.SIG_DFL


def _swallow(signum: int, frame: object) -> None:
    """A handler of the parent's own (as the metering recorder's flush is)."""


@pytest.mark.parametrize("signum", STOPS)
@pytest.mark.parametrize("theirs", [_swallow, signal.SIG_IGN])
def test_a_pools_children_end_at_once_whatever_the_parent_handles(signum, theirs):
    before = signal.signal(signum, theirs)
    try:
        pool = forked_pool(2)
        try:
            assert pool.apply(_ends_at_once, (signum,)) is True
            assert signal.getsignal(signum) is theirs  # the parent keeps its own
        finally:
            pool.terminate()
            pool.join()
    finally:
        signal.signal(signum, before)
