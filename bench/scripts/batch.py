"""A batch of 50 against 50 single reads, in one run (issue 42.3).

In this process, against the full catalogue (read only: the session is set
``default_transaction_read_only``; the stored renderings must be current for this code,
as after a load with it), interleaved rounds (order shuffled every round) of, for a
random set of 50 foods each time:

- ``singles``: 50 x ``rendering.food_record`` (a record read's catalogue work: one query
  each; the worker memory off, so every read is a miss, the spread traffic's case);
- ``batch``: ``catalogue.batch.food_batch`` of the 50 ids (one query, bytes spliced);
- ``batch+fields``: the same with ``fields=name,nutrients_per_100g.protein_g`` (parsed
  and encoded again: the projection's price);
- ``floor``: the 50 records' stored bytes by one raw query on the rendering table's
  primary key, decompressed (they are stored zlib-compressed), nothing else;

and the meter's side: 50 x ``consume`` against one ``consume(units=50)``, on the
in-process meter and, with ``--redis-url``, on the Redis one (keys under a throwaway
prefix, deleted at the end). HTTP, authentication and logging are the same per request
for both and are not measured here (bench/scripts/reads.py measures them).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fs_full \\
        .venv/bin/python bench/scripts/batch.py [--rounds 5] [--sets 40] \\
        [--redis-url redis://127.0.0.1:6379/1] [--no-write]

Figures go to bench/RESULTS.md "## Issue 42.3: a batch of 50" unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import uuid
import zlib
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
os.environ["CATALOGUE_VERSION_SECONDS"] = "0"  # the worker memory off: every read a miss

import django

django.setup()

from django.db import connection  # noqa: E402

from accounts.tiers import TierLimits  # noqa: E402
from bench.kits.loadkit import machine, write_section  # noqa: E402
from catalogue import batch  # noqa: E402
from catalogue.delivery import rendering  # noqa: E402
from catalogue.delivery.projection import (  # noqa: E402
    NO_PROJECTION,
    RECORD_FIELDS,
    parse_projection,
)
from core.calendar import to_us  # noqa: E402
from metering.backends import RedisMeter, redis_client  # noqa: E402
from metering.bucket import Bucket  # noqa: E402
from metering.inprocess import MemoryMeter  # noqa: E402
from metering.meter import Meter, Seed  # noqa: E402
from metering.windows import window_at  # noqa: E402

SIZE = 50
FIELDS = parse_projection({"fields": ["name,nutrients_per_100g.protein_g"]}, shape=RECORD_FIELDS)
HEAD = TierLimits(quota=10**12, window="month", rate=None, burst=None)


def _ids(count: int) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT public_id FROM catalogue_food ORDER BY md5(public_id) LIMIT %s", [count]
        )
        return [row[0] for row in cursor.fetchall()]


def _floor(ids: list[str]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT r.record FROM catalogue_foodrendering r JOIN catalogue_food f "
            "ON f.id = r.food_id WHERE f.public_id = ANY(%s)",
            [ids],
        )
        [zlib.decompress(row[0]) for row in cursor.fetchall()]  # stored compressed


def _singles(ids: list[str]) -> None:
    for public_id in ids:
        rendering.food_record(public_id=public_id, market=None)


def _catalogue_work() -> dict[str, Callable[[list[str]], object]]:
    return {
        "singles": _singles,
        "batch": lambda ids: batch.food_batch(ids=ids, market=None, projection=NO_PROJECTION),
        "batch+fields": lambda ids: batch.food_batch(ids=ids, market=None, projection=FIELDS),
        "floor": _floor,
    }


def _meter_work(meter: Meter, account: int) -> dict[str, Callable[[list[str]], object]]:
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    window = window_at(HEAD, now, now)
    bucket = Bucket.for_limits(HEAD)

    def consume(units: int) -> None:
        meter.consume(
            account_id=account,
            window=window,
            bucket=bucket,
            now_us=to_us(now),
            seed=lambda: Seed(hours={}, period_count=0),
            units=units,
        )

    def singles(ids: list[str]) -> None:
        for _ in ids:
            consume(1)

    return {"meter 50x1": singles, "meter 1x50": lambda ids: consume(len(ids))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sets", type=int, default=40, help="sets of 50 foods a round")
    parser.add_argument("--redis-url", default="")
    parser.add_argument("--no-write", action="store_true")
    options = parser.parse_args()
    with connection.cursor() as cursor:
        cursor.execute("SET default_transaction_read_only = on")
    pool = _ids(20_000)
    work = _catalogue_work()
    meters: list[tuple[str, Meter]] = [("memory", MemoryMeter())]
    redis_meter = None
    if options.redis_url:
        prefix = f"bench-batch-{uuid.uuid4().hex[:8]}:"
        redis_meter = RedisMeter(redis_client(options.redis_url), prefix=prefix)
        meters.append(("redis", redis_meter))
    for n, (name, meter) in enumerate(meters):
        for label, fn in _meter_work(meter, 900_000 + n).items():
            work[f"{label} ({name})"] = fn
    rng = random.Random(42)
    batch_ids = [pool[i : i + SIZE] for i in range(0, len(pool) - SIZE, SIZE)]
    for fn in work.values():  # warm: connections, the format, scripts loaded
        fn(batch_ids[0])
    per_set: dict[str, list[float]] = {name: [] for name in work}
    for round_ in range(options.rounds):
        sets = rng.sample(batch_ids, options.sets)
        order = list(work)
        rng.shuffle(order)
        for name in order:
            started = time.perf_counter()
            for ids in sets:
                work[name](ids)
            per_set[name].append((time.perf_counter() - started) / len(sets) * 1000)
        print(
            f"round {round_ + 1}: " + ", ".join(f"{n} {per_set[n][-1]:.2f} ms" for n in work),
            flush=True,
        )
    if redis_meter is not None:
        client = redis_meter.client
        for key in client.scan_iter(match=f"{redis_meter.prefix}*"):
            client.delete(key)
    med = {name: statistics.median(values) for name, values in per_set.items()}
    lines = [
        f"Machine: {machine()}. Database: the full catalogue (fs_full), read only. "
        f"{options.rounds} rounds x {options.sets} random sets of {SIZE} foods, medians "
        "of the rounds, ms per set of 50 (catalogue work and the meter's decision in "
        "this process; HTTP, authentication and logging, the same per request, left out).",
        "",
        "| what | ms per 50 foods | vs 50 single reads |",
        "| --- | ---: | ---: |",
    ]
    for name in ("singles", "batch", "batch+fields", "floor"):
        lines.append(f"| {name} | {med[name]:.2f} | {med['singles'] / med[name]:.1f}x |")
    for name, _ in meters:
        one, many = med[f"meter 1x50 ({name})"], med[f"meter 50x1 ({name})"]
        lines.append(f"| meter 50 x 1 unit ({name}) | {many:.3f} | 1.0x |")
        lines.append(f"| meter 1 x 50 units ({name}) | {one:.3f} | {many / one:.1f}x |")
    lines += [
        "",
        "Command: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/fs_full .venv/bin/python "
        "bench/scripts/batch.py --redis-url redis://127.0.0.1:6379/1`.",
    ]
    text = "\n".join(lines)
    print(text)
    if not options.no_write:
        write_section("## Issue 42.3: a batch of 50", text)


if __name__ == "__main__":
    main()
