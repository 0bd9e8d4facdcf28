"""GET /v1/suggest's selector before and after a change, and its floor, in one run
(issue 27, point 5: p95 under 10 ms on the full catalogue).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fs_full \\
        .venv/bin/python bench/scripts/suggest_speed.py --before /path/to/old/checkout [--rounds 30]

Times ``catalogue.search.suggest.food_suggest`` of this checkout (*after*) and of the
``catalogue/search/suggest.py`` of ``--before`` (loaded beside it, on the same connection and
the same other modules), keystroke by keystroke (``bench.kits.queries.TYPED``), in
markets US, IN and every market, alternating the two for every keystroke and round so
the machine's drift hits both alike. The *floor* is one ``SELECT 1`` round trip on the
same connection: what any selector answering from the database costs at least. Checks
that both answer the same suggestions, then prints p50 and p95 (ms) of each, over all
keystrokes and over the keystrokes of one or two letters.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.kits.loadkit import elapsed_ms, percentile  # noqa: E402
from bench.kits.queries import TYPED  # noqa: E402

MARKETS = ("US", "IN", None)


def _before(root: Path) -> Any:
    spec = importlib.util.spec_from_file_location(
        "suggest_before", root / "catalogue/search/suggest.py"
    )
    if spec is None or spec.loader is None:
        raise SystemExit(f"no catalogue/search/suggest.py under {root}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="an older checkout")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
    os.environ.setdefault("METERING_ENABLED", "0")
    import django

    django.setup()
    from django.db import connections

    from catalogue.routing import catalogue_read_alias
    from catalogue.search import suggest

    before = _before(args.before)
    connection = connections[catalogue_read_alias()]

    def floor() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()

    cases = [(q, m) for m in MARKETS for q in TYPED]
    for q, m in cases:  # warm both, and check they agree
        old, new = before.food_suggest(q=q, market=m), suggest.food_suggest(q=q, market=m)
        if [s.text for s in old] != [s.text for s in new]:
            raise SystemExit(f"before and after differ on {q!r} in {m}: {old} != {new}")
    times: dict[str, list[tuple[str, float]]] = {"before": [], "after": [], "floor": []}
    for round_ in range(args.rounds):
        for q, m in cases:
            pair = [("before", before.food_suggest), ("after", suggest.food_suggest)]
            for name, fn in pair if round_ % 2 else reversed(pair):
                times[name].append((q, elapsed_ms(lambda fn=fn, q=q, m=m: fn(q=q, market=m))))
            times["floor"].append((q, elapsed_ms(floor)))
    print(f"{len(cases)} keystrokes x {args.rounds} rounds; ms")
    print("| selector | p50 | p95 | p50, 1-2 letters | p95, 1-2 letters |")
    print("|---|---|---|---|---|")
    for name, samples in times.items():
        every = [t for _, t in samples]
        short = [t for q, t in samples if len(q) <= 2]
        print(
            f"| {name} | {statistics.median(every):.2f} | {percentile(every, 95):.2f} "
            f"| {statistics.median(short):.2f} | {percentile(short, 95):.2f} |"
        )


if __name__ == "__main__":
    main()
