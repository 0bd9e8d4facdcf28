"""Speed of POST /v1/analysis (issue 26, point 6) on the catalogue of ``DATABASE_URL``
(the full catalogue on PostgreSQL for the figures in bench/RESULTS.md):

    DATABASE_URL=postgres://.../fs_full_copy .venv/bin/python bench/scripts/analysis_speed.py

Bodies of 10 and 100 lines are drawn (seeded) from the judged set's lines
(tests/support/judged/analysis_set.py), a different draw each round, so repeats within a body
are what a recipe has, not a warm cache. Reports p50/p95 of ``analysis_run`` (the
selector the view calls) and of the whole request through Django's test client (key
check, metering, parsing, rendering), and where the selector's time goes: parsing,
searching (``catalogue.search.selectors.food_top_ids``, one per distinct food text),
reading the candidates' measures and nutrients, weighing and summing. The process is set
up as a gunicorn worker is (core/gctune.py) unless ``--no-settle``; before and after in
one run: bench/scripts/analysis_compare.py. A benchmark, not a test: no assertion on
time.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import django

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
django.setup()

from django.conf import settings  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from catalogue.analysis import selectors  # noqa: E402
from core import gctune  # noqa: E402
from tests.support.judged.analysis_set import LINES  # noqa: E402

PHASES: dict[str, float] = defaultdict(float)


def _timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            PHASES[name] += time.perf_counter() - start

    return wrapper


def _instrument() -> None:
    """Wraps the selector's parts to time them (a measuring seam, this script only)."""
    selectors.parse_line = _timed("parse", selectors.parse_line)
    selectors.food_top_ids = _timed("search", selectors.food_top_ids)
    selectors.line_result = _timed("weigh+choose", selectors.line_result)
    selectors.analysis_summed = _timed("sum", selectors.analysis_summed)
    selectors.food_rows = _timed("fetch", selectors.food_rows)


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _client() -> APIClient:
    from accounts.services import account_create
    from keys.services import key_create

    email = f"bench-{time.time_ns()}@example.com"  # a throwaway account in the copy
    account = account_create(email=email, tier="head_chef", market="US")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_create(account=account, label="bench")[1])
    return client


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument(
        "--no-settle", dest="settle", action="store_false",
        help="keep CPython's collector defaults instead of a gunicorn worker's (core/gctune.py)",
    )  # fmt: skip
    args = parser.parse_args()
    settings.ALLOWED_HOSTS = ["*"]
    logging.disable(logging.INFO)  # the request log of every call
    rng = random.Random(26)
    lines = [line for line, _, _ in LINES]
    client = _client()
    selectors.analysis_run(lines=lines[:20], market=None)  # connections, caches
    if args.settle:
        gctune.settle()  # as gunicorn.conf.py's post_worker_init does in every worker
    for size in (10, 100):
        bodies = [rng.choices(lines, k=size) if size > len(lines) else rng.sample(lines, size)
                  for _ in range(args.rounds)]  # fmt: skip
        run, http = [], []
        for body in bodies:
            start = time.perf_counter()
            selectors.analysis_run(lines=body, market=None)
            run.append(time.perf_counter() - start)
        for body in bodies:
            start = time.perf_counter()
            response = client.post("/v1/analysis", {"ingredients": body}, format="json")
            http.append(time.perf_counter() - start)
            assert response.status_code == 200, response.content[:200]
        print(
            f"{size:>3} lines: analysis_run p50 {_p(run, 0.5):.1f} ms p95 {_p(run, 0.95):.1f} ms;"
            f" request p50 {_p(http, 0.5):.1f} ms p95 {_p(http, 0.95):.1f} ms"
            f" ({args.rounds} rounds)"
        )
    _instrument()
    PHASES.clear()
    body = rng.sample(lines, 100)
    start = time.perf_counter()
    for _ in range(5):
        selectors.analysis_run(lines=body, market=None)
    total = (time.perf_counter() - start) / 5
    print(f"where the time of a 100-line analysis goes ({total * 1000:.1f} ms, mean of 5):")
    for name, seconds in sorted(PHASES.items(), key=lambda item: -item[1]):
        print(f"  {name:<13} {seconds / 5 * 1000:7.1f} ms  {100 * seconds / 5 / total:5.1f}%")


if __name__ == "__main__":
    main()
