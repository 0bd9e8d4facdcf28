"""Each worker's memory of served bytes (catalogue.delivery.memory, issue 28.5): bounded in
bytes, compressed, and never holding bytes read before a version it has seen."""

from __future__ import annotations

import pytest

from catalogue.delivery import rendering
from catalogue.delivery.memory import ENTRY_OVERHEAD, LocalBytes
from catalogue.models import Food

pytestmark = pytest.mark.django_db


@pytest.fixture
def memory(settings) -> LocalBytes:
    settings.CATALOGUE_VERSION_SECONDS = 60
    settings.CATALOGUE_MEMORY_MB = 1
    return LocalBytes(share=0.5, version=rendering.current_version)


def _body(n: int) -> bytes:
    # JSON-like bytes that compress about as well as a record does.
    return b'{"data":{"id":"food-%d","nutrients":[' % n + b'{"id":203,"amount":1.5},' * 400 + b"]}}"


def test_bytes_come_back_as_stored_and_are_kept_compressed(memory):
    assert memory.get("a") is None  # reads the version
    body = _body(1)
    memory.put("a", (body, '"tag"'), version=memory.version)
    assert memory.get("a") == (body, '"tag"')
    assert memory.size < len(body) / 4 + ENTRY_OVERHEAD + 10


def test_the_memory_holds_at_most_its_budget_dropping_the_oldest_first(memory):
    memory.get("warm")
    budget = memory.budget()
    assert budget == 2**19  # half of 1 MB
    stored = 0
    while memory.size < budget * 3 // 4 or stored < 50:  # well past the budget below
        memory.put(stored, (_body(stored), '"t"'), version=memory.version)
        stored += 1
    for n in range(stored, stored * 2):
        memory.put(n, (_body(n), '"t"'), version=memory.version)
        assert memory.size <= budget
    assert memory.get(0) is None  # the oldest went first
    assert memory.get(stored * 2 - 1) == (_body(stored * 2 - 1), '"t"')
    assert sum(len(v[0]) + len(v[1]) + ENTRY_OVERHEAD for v in memory.entries.values()) == (
        memory.size
    )


def test_an_entry_larger_than_the_budget_is_not_kept(memory, settings):
    settings.CATALOGUE_MEMORY_MB = 0.0001  # ~50 bytes for this memory
    memory.get("warm")
    memory.put("big", (_body(1), '"t"'), version=memory.version)
    assert memory.get("big") is None and memory.size == 0


def test_bytes_read_before_a_version_the_memory_has_seen_are_not_kept(memory, sr28_small):
    assert memory.get("food") is None
    before = memory.version  # a miss: the bytes are read now, under this version ...
    stale = (b"old bytes", '"old"')
    food = Food.objects.get(public_id="sr28-01001")
    food.name = "Butter, renamed"
    food.save()  # ... a change commits, and another request sees its version
    memory.checked = float("-inf")
    assert memory.get("other") is None
    assert memory.version != before
    memory.put("food", stale, version=before)
    assert memory.get("food") is None
    memory.put("food", stale, version=memory.version)  # read after: kept
    assert memory.get("food") == stale


def test_no_memory_when_catalogue_version_seconds_is_zero(memory, settings):
    memory.get("warm")
    memory.put("a", (b"x", '"t"'), version=memory.version)
    settings.CATALOGUE_VERSION_SECONDS = 0
    assert memory.get("a") is None
    memory.put("a", (b"x", '"t"'), version=memory.version)
    assert memory.entries == {} and memory.size == 0
