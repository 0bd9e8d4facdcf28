"""The cyclic garbage collector tuned for a long-lived worker (issue 38's analysis speed).

A worker's heap after start-up is mostly Django, the apps and their modules: ~100,000
tracked objects that live as long as the process. CPython's full collection walks all of
them, and measured in a worker that had analysed 30 ten-line bodies (bench/RESULTS.md),
one full collection took 90 ms; it fell on whichever request happened to allocate the
object that crossed the threshold, as a 100 ms tail on a 60 ms analysis. ``settle()``:

- ``gc.freeze()``: everything alive at that moment (the imported code and the app) moves
  to the permanent generation, which no later collection walks (the CPython docs'
  recipe for long-lived processes; collections still find cycles among objects made
  later);
- the first generation's threshold raised from 700 to ``GEN0_THRESHOLD`` allocations
  (the later generations keep CPython's ratios): a request allocates thousands of
  short-lived containers (querysets, rows, name records), and at 700 a collection ran
  every few hundred microseconds of work, promoting live request objects to the older
  generations that full collections walk. 50,000 containers are a few MB at most.

Called once per worker after the application is loaded (gunicorn.conf.py,
``post_worker_init``) and by the benchmarks that stand in for a worker. Process-local
and stateless beyond the interpreter's collector: nothing here can go stale between
workers.
"""

from __future__ import annotations

import gc

GEN0_THRESHOLD = 50_000


def settle() -> tuple[int, int, int]:
    """Freeze the objects alive now and raise the first generation's threshold; returns
    the thresholds now in force."""
    gc.collect()  # what start-up left as garbage is freed, not frozen
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GEN0_THRESHOLD, gen1, gen2)
    return gc.get_threshold()
