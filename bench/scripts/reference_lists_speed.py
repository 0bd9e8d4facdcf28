"""GET /v1/nutrients and GET /v1/categories without the worker's memory (issue 42.5): what
a page costs the first time a worker builds it after a load, against its floor and
against the one-query alternative for the categories' markets, in one run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fs_full \\
        .venv/bin/python bench/scripts/reference_lists_speed.py [--rounds 30]

Reads only (nothing is written: safe on a shared catalogue). Times
``catalogue.reference_lists.list_body`` (the page's queries, serialising, the cursor and
the ETag) for the first and a later page of each list and market, alternating the
cases every round so the machine's drift hits them alike. The *floor* is one
``SELECT 1`` round trip on the same connection. *Grouped* is the categories' markets
worked out by grouping every food by category and market (one query, the design not
taken): what ``categories_of``'s probe a category replaces. Also what ``net_carbs_g``
costs a rendering: the headline object with it (after) and without it (before) against
the whole summary, over 100 real foods. Prints p50 and p95 (ms).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.kits.loadkit import elapsed_ms, percentile  # noqa: E402

GROUPED = "SELECT DISTINCT category_id, market_id FROM catalogue_food"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
    os.environ.setdefault("METERING_ENABLED", "0")
    import django

    django.setup()
    from django.db import connections

    from catalogue import reference_lists as lists
    from catalogue.routing import catalogue_read_alias

    connection = connections[catalogue_read_alias()]

    def run(sql: str) -> None:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            cursor.fetchall()

    def page(kind: str, market: str | None, *, deep: bool) -> Callable[[], object]:
        params = {"page_size": ["100"]} | ({"market": [market]} if market else {})
        query = lists.list_query_parse(kind=kind, params=params)
        if deep:  # the page links.next of the first leads to
            first = lists.list_body(query=query, path="/", market=market)[0]
            token = unquote(first.split(b"cursor=", 1)[1].split(b'"', 1)[0].decode())
            query = lists.list_query_parse(kind=kind, params={"cursor": [token]})
        return lambda: lists.list_body(query=query, path="/", market=market)

    # What net_carbs_g adds to a rendering: headline_amounts (the columns and net carbs)
    # against the whole summary it is part of, over 100 real foods.
    from catalogue.delivery.serializers import LIST_FIELDS, food_summary
    from catalogue.models import Food
    from catalogue.nutrients import HEADLINES, headline_amounts

    rows = list(Food.objects.filter(fiber_g__isnull=False).values(*LIST_FIELDS)[:100])
    columns = [h.column for h in HEADLINES]

    cases: dict[str, Callable[[], object]] = {
        "100 summaries (food_summary)": lambda: [food_summary(r) for r in rows],
        "100 headline_amounts (after)": lambda: [headline_amounts(r) for r in rows],
        "100 headline columns (before)": lambda: [{c: r[c] for c in columns} for r in rows],
        "floor (SELECT 1)": lambda: run("SELECT 1"),
        "nutrients, page 1 (100)": page(lists.NUTRIENTS, None, deep=False),
        "nutrients, page 2 (cursor)": page(lists.NUTRIENTS, None, deep=True),
        "categories, every market, page 1": page(lists.CATEGORIES, None, deep=False),
        "categories, US, page 1": page(lists.CATEGORIES, "US", deep=False),
        "categories, US, page 2 (cursor)": page(lists.CATEGORIES, "US", deep=True),
        "categories, IN, page 1": page(lists.CATEGORIES, "IN", deep=False),
        "grouped markets (not taken)": lambda: run(GROUPED),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for fn in cases.values():
        fn()  # warm
    for _ in range(args.rounds):
        for name, fn in cases.items():
            times[name].append(elapsed_ms(fn))
    print(f"{'case':36} {'p50 ms':>8} {'p95 ms':>8}")
    for name, samples in times.items():
        print(f"{name:36} {percentile(samples, 50):8.2f} {percentile(samples, 95):8.2f}")


if __name__ == "__main__":
    main()
