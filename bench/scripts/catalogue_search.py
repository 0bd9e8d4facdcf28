"""Catalogue benchmark (issue 3, "Speed"): full FDC + SR28 + IFCT load, then search and
record-by-id latency on PostgreSQL, written under "## Catalogue" in bench/RESULTS.md.

    .venv/bin/python bench/scripts/catalogue_search.py            # load from scratch, then measure
    .venv/bin/python bench/scripts/catalogue_search.py --skip-load  # measure the loaded database
    .venv/bin/python bench/scripts/catalogue_search.py --skip-load --repeat 5  # medians of 5 rounds

Uses its own database (default postgres://postgres@127.0.0.1:5432/fs_bench_catalogue),
dropped and recreated unless --skip-load. Latencies are server-side: the selector (the
SQL the view runs) and the whole view stack through Django's test client.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.kits.queries import (  # noqa: E402
    LONG_QUERIES,
    ONE_WORD,
    PREFIXES,
    REGIONAL,
    TWO_WORDS,
    TYPED,
    TYPOS,
    WEAK_LONG,
)

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/fs_bench_catalogue"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per query")
    parser.add_argument(
        "--repeat", type=int, default=1, help="measurement rounds; the table shows their medians"
    )
    args = parser.parse_args()
    env = os.environ | {"DATABASE_URL": args.database_url, "FOODSERVICE_VAR_DIR": "/tmp/fs-bench"}
    env.pop("REDIS_URL", None)
    env["METERING_ENABLED"] = "0"
    os.environ.update(env)
    loads = [] if args.skip_load else load_everything(args.database_url, env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
    import django

    django.setup()
    rounds, loadavgs = [], []
    for _ in range(args.repeat):
        loadavgs.append(_loadavg())
        rounds.append(measure(args.runs))
    figures = table(rounds, loadavgs)
    write_results(loads, figures, plans())


def psql(sql: str, url: str) -> None:
    parts = urlsplit(url)
    subprocess.run(
        ["psql", "-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432),
         "-U", parts.username or "postgres", "-d", "postgres", "-qc", sql],
        check=True,
    )  # fmt: skip


def load_everything(url: str, env: dict[str, str]) -> list[str]:
    name = urlsplit(url).path.lstrip("/")
    psql(f'DROP DATABASE IF EXISTS "{name}"', url)
    psql(f'CREATE DATABASE "{name}"', url)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], check=True, env=env)
    lines = []
    for source in ("fdc", "sr28", "ifct"):
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        started = time.monotonic()
        done = subprocess.run(
            [*manage, "load_catalogue", "--source", source],
            check=True, env=env, capture_output=True, text=True,
        )  # fmt: skip
        seconds = time.monotonic() - started
        peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
        summary = done.stdout.strip().splitlines()[-1]
        lines.append(f"- `load_catalogue --source {source}`: {seconds:.1f} s wall, "
                     f"peak RSS {peak:.0f} MB (max over loads so far); {summary}")  # fmt: skip
    return lines


def timed(fn, runs: int) -> list[float]:  # type: ignore[no-untyped-def]
    for _ in range(2):
        fn()
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


def p(samples: list[float], q: float) -> float:
    return statistics.quantiles(samples, n=100)[int(q) - 1] if len(samples) > 1 else samples[0]


def _fixtures():  # type: ignore[no-untyped-def]
    from django.conf import settings

    from catalogue.delivery import rendering
    from catalogue.search import selectors
    from catalogue.search.paging import Position
    from catalogue.search.params import parse_food_query

    def search(q: str, offset: int, *, cursor: bool = False) -> selectors.FoodPage:
        """Page 1 (offset 0), a page number at ``offset``, or (``cursor``) the keyset
        page at ``offset`` that links.next leads to."""
        query = parse_food_query({"q": [q]})
        position = Position(offset)
        if cursor:
            before = Position(offset - query.page_size)
            position = selectors.food_search(
                query=query, market="US", depth=1000, position=before
            ).next
        return selectors.food_search(query=query, market="US", depth=1000, position=position)

    def record(public_id: str) -> None:
        # The read GET /v1/foods/{id} makes (issue 13): the food and its pre-rendered
        # bytes in one raw query, without the worker's memory of served records (off
        # while CATALOGUE_VERSION_SECONDS is 0: catalogue.delivery.memory).
        kept, settings.CATALOGUE_VERSION_SECONDS = settings.CATALOGUE_VERSION_SECONDS, 0
        try:
            rendering.food_record(public_id=public_id, market="US")
        finally:
            settings.CATALOGUE_VERSION_SECONDS = kept

    return search, record


def measure(runs: int) -> list[tuple[str, list[float]]]:
    from django.test import Client

    from accounts.services import account_create
    from catalogue.models import Food
    from catalogue.search import selectors
    from catalogue.search.params import parse_food_query
    from keys.services import key_create

    search, record = _fixtures()
    email = f"bench{random.randrange(10**9)}@example.com"
    account = account_create(email=email, tier="head_chef", market="US")
    secret = key_create(account=account, label="bench")[1]
    client = Client(HTTP_X_API_KEY=secret)

    def at_cursor(q: str) -> selectors.FoodPage:
        # The position links.next carries at offset 980, timed without making it.
        query = parse_food_query({"q": [q]})
        return selectors.food_search(query=query, market="US", depth=1000, position=positions[q])

    rows = []
    for label, queries in (("one word", ONE_WORD), ("two words", TWO_WORDS)):
        deep = [q for q in queries if search(q, 0).total >= 1000]
        positions = {q: _position_before(search, q) for q in deep}
        for where, fn, chosen in (
            ("page 1", lambda q: search(q, 0), queries),
            ("depth cap, page number (offset 980)", lambda q: search(q, 980), deep),
            ("depth cap, links.next cursor (offset 980)", at_cursor, deep),
        ):
            samples: list[float] = []
            for q in chosen:
                samples += timed(lambda q=q, fn=fn: fn(q), runs)
            rows.append((f"search, {label}, {where}", samples))
    samples = []
    for q in PREFIXES:
        samples += timed(lambda q=q: search(q, 980), max(3, runs // 4))
    rows.append(("search, one-word prefix (other matches ranked), offset 980", samples))
    samples = []
    for q in TYPOS:
        assert search(q, 0).corrected_q, q  # the fallback is what is measured
        samples += timed(lambda q=q: search(q, 0), runs)
    rows.append(("search, misspelling (typo fallback, corrected), page 1", samples))
    for label, queries in (
        ("search, three or more words, page 1", LONG_QUERIES),
        ("search, three or more words, weak (relaxed), page 1", WEAK_LONG),
        ("search, regional name (synonym), page 1", REGIONAL),
    ):
        rows.append((label, [t for q in queries for t in timed(lambda q=q: search(q, 0), runs)]))
    try:
        from catalogue.search import suggest
    except ImportError:  # a tree before issue 27
        suggest = None
    if suggest is not None:
        samples = []
        for q in TYPED:
            samples += timed(lambda q=q: suggest.food_suggest(q=q, market="US"), runs)
        rows.append(("suggest (GET /v1/suggest's selector), as typed", samples))
        view = [t for q in TYPED for t in timed(lambda q=q: client.get("/v1/suggest", {"q": q}), 5)]
        rows.append(("GET /v1/suggest?q=<as typed> (whole view stack, unmetered)", view))
    us = Food.objects.filter(market_id="US").order_by("?")
    ids = list(us.values_list("public_id", flat=True)[:100])
    rows.append(("record by id", [t for pid in ids for t in timed(lambda pid=pid: record(pid), 3)]))
    view = [t for q in ONE_WORD for t in timed(lambda q=q: client.get("/v1/foods", {"q": q}), 5)]
    rows.append(("GET /v1/foods?q=<one word> (whole view stack, unmetered)", view))
    view_id = [
        t for pid in ids[:50] for t in timed(lambda pid=pid: client.get(f"/v1/foods/{pid}"), 3)
    ]
    rows.append(("GET /v1/foods/{id} (whole view stack, unmetered)", view_id))
    return rows


def _position_before(search, q: str):  # type: ignore[no-untyped-def]
    from catalogue.search import selectors
    from catalogue.search.paging import Position
    from catalogue.search.params import parse_food_query

    query = parse_food_query({"q": [q]})
    page = selectors.food_search(query=query, market="US", depth=1000, position=Position(960))
    return page.next


def table(rounds: list[list[tuple[str, list[float]]]], loadavgs: list[str]) -> list[str]:
    """Per measurement, the median over rounds of each round's p50, p95 and max."""
    from catalogue.models import Food

    figures = [
        f"- foods in the catalogue: {Food.objects.count():,}",
        f"- {len(rounds)} round(s); 1-minute load average at the start of each: "
        + ", ".join(loadavgs),
        "",
        "| measurement | samples per round | p50 ms | p95 ms | max ms | p95 range over rounds |",
        "|---|---|---|---|---|---|",
    ]
    for index, (name, samples) in enumerate(rounds[0]):
        if not samples:
            continue
        per_round = [r[index][1] for r in rounds]
        p50 = statistics.median(p(s, 50) for s in per_round)
        p95s = [p(s, 95) for s in per_round]
        top = statistics.median(max(s) for s in per_round)
        figures.append(
            f"| {name} | {len(samples)} | {p50:.1f} | {statistics.median(p95s):.1f} | "
            f"{top:.1f} | {min(p95s):.1f}-{max(p95s):.1f} |"
        )
    return figures


def plans() -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from catalogue.models import Food
    from catalogue.search import selectors
    from catalogue.search.params import parse_food_query

    search, record = _fixtures()
    filtered = parse_food_query({"q": ["cheese"], "data_type": ["branded"]})
    pid = Food.objects.order_by("id").values_list("public_id", flat=True)[1000]
    out = []
    cases = [
        ("search `q=cheese`, page 1", lambda: search("cheese", 0)),
        ("search `q=cheese`, links.next cursor at offset 980",
         lambda: search("cheese", 980, cursor=True)),
        ("search `q=peanut butter`, page number at offset 980",
         lambda: search("peanut butter", 980)),
        ("search `q=whole milk` (under 1,000 phrase matches: the rest counted on the GIN index)",
         lambda: search("whole milk", 0)),
        ("search `q=chick`, offset 980 (past its phrase matches: other matches ranked)",
         lambda: search("chick", 980)),
        ("search `q=bananna` (typo fallback: the search, the correction, the corrected search)",
         lambda: search("bananna", 0)),
        ("search `q=cheese&data_type=branded` (a filter: every match ranked)",
         lambda: selectors.food_search(query=filtered, market="US", depth=1000,
                                       position=_start())),
        ("record by id", lambda: record(pid)),
    ]  # fmt: skip
    for title, action in cases:
        with CaptureQueriesContext(connection) as captured:
            action()
        queries = [q["sql"] for q in captured.captured_queries]
        if "cursor" in title:
            queries = queries[len(queries) // 2 :]  # the page, not the one before it
        for sql in queries:
            if not re.search(r"catalogue_(food|word)", sql) or "catalogue_nutrient" in sql:
                continue
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql)
                plan = "\n".join(row[0] for row in cursor.fetchall())
            out.append(f"{title}:\n\n```\n{_short(sql)}\n\n{plan}\n```\n")
    return out


def _start():  # type: ignore[no-untyped-def]
    from catalogue.search.paging import Position

    return Position(0)


def _loadavg() -> str:
    with open("/proc/loadavg") as handle:
        return handle.read().split()[0]


def _short(sql: str) -> str:
    sql = re.sub(r'"catalogue_food"\."(\w+)"', r"\1", sql)
    return sql if len(sql) < 1500 else sql[:1500] + " ..."


def write_results(loads: list[str], figures: list[str], plans: list[str]) -> None:
    with open("/proc/loadavg") as handle:
        loadavg = " ".join(handle.read().split()[:3])
    cpu = platform.processor()
    with open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    path = ROOT / "bench" / "RESULTS.md"
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    pattern = re.compile(r"## Catalogue\n.*?(?=\n## |\Z)", re.S)
    found = pattern.search(text)
    # Hand-written notes under their own ### heading (not the plans) survive a re-run.
    notes = re.findall(r"(?ms)^### (?!Query plans).*?(?=^### |\Z)", found.group(0)) if found else []
    if not loads:  # --skip-load: keep the figures of the last load
        kept = re.search(r"^- Load.*?\n(?:  .*\n)*", found.group(0), re.M) if found else None
        loads = kept.group(0).rstrip("\n").splitlines() if kept else []
        loads = loads or ["- load: skipped (`--skip-load`), database loaded earlier"]
    section = [
        "## Catalogue",
        "",
        f"Run {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by "
        f"`bench/scripts/catalogue_search.py` on "
        f"{platform.node()}: {os.cpu_count()} CPUs ({cpu}), PostgreSQL (shared_buffers default), "
        f"Python {platform.python_version()}. Load average at the end: {loadavg} (2 cores: at a "
        "load average above 2 the figures are pessimistic).",
        "",
        *loads,
        *figures,
        "",
        "Targets (issues 3 and 12): search p95 < 25 ms, typo fallback p95 < 50 ms, record "
        "by id p95 < 5 ms. Search rows measure "
        "`catalogue.search.selectors.food_search`: every query it makes (the page's sort keys, its "
        "wide rows, the capped count), market US, Taster depth 1,000, 20 rows a page. The "
        "depth-cap rows skip queries with fewer than 1,000 matches; the cursor rows start "
        "from the signed position links.next carries (a keyset page). The prefix row is "
        "informative (no target): words being typed, whose deep pages lie past the phrase "
        "matches, so every other match is ranked. The misspelling row (issue 12) is a search "
        "whose words match (almost) nothing, its correction (catalogue.search.spelling: a "
        "vocabulary look-up, pg_trgm candidates, maybe the words one edit away or a split "
        "of two words run together) and the corrected search. Record by id is the read "
        "`GET /v1/foods/{id}` makes since issue 13 (the food "
        "and its pre-rendered bytes in one raw query, without the worker's memory); the "
        "whole-view-stack rows repeat the same requests, so they are mostly answered from "
        "that memory.",
        "",
        *(note.rstrip() + "\n" for note in notes),
        "### Query plans",
        "",
        *plans,
    ]
    body = "\n".join(section).rstrip() + "\n"
    text = (
        pattern.sub(lambda _: body, text) if pattern.search(text) else text.rstrip() + "\n\n" + body
    )
    path.write_text(text)
    print(body)


if __name__ == "__main__":
    main()
