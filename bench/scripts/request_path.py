"""What the request path costs around a read, before and after issue 41.1's last two
changes, in one process (the machine is shared: a ratio within one run holds).

Requests go through Django's ``WSGIHandler`` itself, as gunicorn calls it, so each
request's start and end signals run and the connection's health check runs as in
production (Django's test client skips both). Three variants, interleaved request by
request so a neighbour's load falls on all alike:

- ``django``: Django's health check (``SELECT 1`` before a request's first query) and
  Django's session, user and messages middleware (the code before the changes);
- ``health``: the health check of ``foodservice.ops.postgresql`` (no round trip when the
  socket shows nothing wrong), Django's middleware;
- ``both``: that, and the middleware of ``foodservice.http.browser`` (this tree).

Kinds: ``search new`` (a catalogue word held by 20-5,000 foods, new to the process and to
Redis, as bench/scripts/capacity.py's) and ``record cold`` (a US food not read before:
its stored rendering read from PostgreSQL, as issue 41.2's cold spread). Per variant:
Python CPU (``time.process_time``), the PostgreSQL backend's CPU (its ``schedstat``, in
nanoseconds) and wall time per
request (medians of ``--rounds`` rounds). Metered on a throwaway redis-server, request
logging at WARNING. It writes an account and a key: run it on a copy of the catalogue.

    .venv/bin/python bench/scripts/request_path.py --database-url postgres://.../fs_copy \\
        [--requests 200] [--rounds 4]
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root
sys.path.insert(0, str(Path(__file__).resolve().parent))

from capacity import backends, catalogue_words, us_foods

from bench.kits.inprocess import metered_client
from tests.support.engines import ThrowawayRedis

VARIANTS = ("django", "health", "both")
DJANGO_S = {
    "foodservice.http.browser.SessionMiddleware": (
        "django.contrib.sessions.middleware.SessionMiddleware"
    ),
    "foodservice.http.browser.AuthenticationMiddleware": (
        "django.contrib.auth.middleware.AuthenticationMiddleware"
    ),
    "foodservice.http.browser.MessageMiddleware": (
        "django.contrib.messages.middleware.MessageMiddleware"
    ),
}


def cpu_seconds(pids: list[int]) -> float:
    """CPU seconds ``pids`` ran (``/proc/<pid>/schedstat``: nanoseconds, where
    ``/proc/<pid>/stat`` counts 10 ms ticks, too coarse for one request)."""
    total = 0
    for pid in pids:
        try:
            total += int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
        except OSError:
            continue
    return total / 1e9


def handlers() -> dict[str, Any]:
    """A ``WSGIHandler`` per middleware list: Django's three, and this tree's."""
    from django.conf import settings
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import override_settings

    ours = list(settings.MIDDLEWARE)
    theirs = [DJANGO_S.get(path, path) for path in ours]
    assert theirs != ours, "this tree has no browser middleware to toggle"
    with override_settings(MIDDLEWARE=theirs):
        django_s = WSGIHandler()
    return {"django": django_s, "health": django_s, "both": WSGIHandler()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--requests", type=int, default=200, help="per variant and round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    redis = ThrowawayRedis()
    redis.start()
    try:
        client = metered_client(args.database_url, redis.url, "request-path")
        secret = client.defaults["HTTP_X_API_KEY"]
        from django.db import connections
        from django.db.backends.postgresql.base import DatabaseWrapper as DjangoPostgres
        from django.test.client import FakePayload, RequestFactory

        from metering.recorder import flusher

        connection = connections["default"]  # the wrapper itself, not the proxy
        assert connection.settings_dict["ENGINE"] == "foodservice.ops.postgresql"
        per_kind = args.requests * args.rounds * len(VARIANTS)
        words = catalogue_words(args.database_url, per_kind + 30)
        foods = [public_id for _, public_id in us_foods(args.database_url, per_kind + 30)]
        if len(words) < per_kind + 30:  # the full catalogue has ~2,950 such words
            sys.exit(f"{len(words)} catalogue words for {per_kind + 30}: fewer requests")
        random.Random(args.seed).shuffle(words)
        paths = {
            "search new": [("/v1/foods", urlencode({"q": w})) for w in words],
            "record cold": [(f"/v1/foods/{food}", "") for food in foods],
        }
        built = handlers()
        factory = RequestFactory()

        def health(variant: str) -> None:
            if variant == "django":
                connection.is_usable = types.MethodType(DjangoPostgres.is_usable, connection)
            else:
                connection.__dict__.pop("is_usable", None)

        def serve(variant: str, path: str, query: str) -> None:
            environ = factory._base_environ(
                PATH_INFO=path,
                QUERY_STRING=query,
                REQUEST_METHOD="GET",
                HTTP_X_API_KEY=secret,
                **{"wsgi.input": FakePayload(b"")},
            )
            statuses: list[str] = []
            response = built[variant](environ, lambda status, headers: statuses.append(status))
            b"".join(response)
            response.close()  # request_finished, as gunicorn does
            assert statuses[0].startswith("200"), (path, query, statuses)

        for todo in paths.values():  # imports, plans, connections
            for variant in VARIANTS:
                health(variant)
                for path, query in todo[:10]:
                    serve(variant, path, query)
        pid = backends(args.database_url)
        results: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
        for kind, todo in paths.items():
            queue = iter(todo[30:])
            for _ in range(args.rounds):
                spent = {v: [0.0, 0.0, 0.0] for v in VARIANTS}
                for _ in range(args.requests):
                    for variant in VARIANTS:
                        path, query = next(queue)
                        health(variant)
                        pg0 = cpu_seconds(pid)
                        cpu0, wall0 = time.process_time(), time.perf_counter()
                        serve(variant, path, query)
                        cpu1, wall1 = time.process_time(), time.perf_counter()
                        spent[variant][0] += cpu1 - cpu0
                        spent[variant][1] += cpu_seconds(pid) - pg0
                        spent[variant][2] += wall1 - wall0
                for variant, (cpu, pg, wall) in spent.items():
                    n = args.requests
                    results.setdefault((kind, variant), []).append(
                        (cpu / n * 1000, pg / n * 1000, wall / n * 1000)
                    )
        health("both")
        flusher.flush_quietly()  # the usage history, while its Redis still runs
    finally:
        redis.stop()
    out = io.StringIO()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{args.rounds} rounds x {args.requests} requests a variant and kind, interleaved; "
        f"load average at the end {load}; medians of the rounds (ms a request):",
        file=out,
    )
    print("", file=out)
    print("| kind | variant | Python | PostgreSQL | wall | Python by round |", file=out)
    print("|---|---|---|---|---|---|", file=out)
    for (kind, variant), rounds in results.items():
        cpu, pg, wall = (statistics.median(r[i] for r in rounds) for i in range(3))
        by_round = ", ".join(f"{r[0]:.2f}" for r in rounds)
        print(f"| {kind} | {variant} | {cpu:.3f} | {pg:.3f} | {wall:.3f} | {by_round} |", file=out)
    print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
