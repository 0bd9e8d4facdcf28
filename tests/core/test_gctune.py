"""core/gctune.py: a worker's long-lived objects frozen out of full collections, a larger
first generation; run in a fresh interpreter (the collector is process-wide state)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.backend_free

_PROBE = """
import gc, json, runpy, sys
sys.path.insert(0, {root!r})
before = gc.get_threshold()
conf = runpy.run_path({conf!r})
conf["post_worker_init"](None)  # as gunicorn calls it once the worker loaded the app
frozen = gc.get_freeze_count()
made = [[i] for i in range(1000)]  # objects made after: still collected normally
cycle = []
cycle.append(cycle)
del cycle
found = gc.collect()
print(json.dumps({{"before": before, "after": gc.get_threshold(), "frozen": frozen,
                   "found": found, "still_frozen": gc.get_freeze_count()}}))
"""


def _probe() -> dict:
    code = _PROBE.format(root=str(ROOT), conf=str(ROOT / "gunicorn.conf.py"))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_worker_freezes_its_start_up_objects_and_raises_the_first_threshold():
    from core import gctune

    seen = _probe()
    assert seen["before"][0] == 700  # CPython's default, so the change is ours
    assert seen["after"] == [gctune.GEN0_THRESHOLD, seen["before"][1], seen["before"][2]]
    assert seen["frozen"] > 1000  # the imported modules' objects
    # a cycle made afterwards is still found and freed; the frozen ones stay frozen
    assert seen["found"] >= 1
    assert seen["still_frozen"] == seen["frozen"]
