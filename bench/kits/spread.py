"""The spread traffic of bench/scripts/reads.py ``--spread`` (issue 28, point 5), which
bench/scripts/reads_profile.py profiles too: the paths (records of random foods,
searches of ~1,150 distinct one- and two-word queries), wrk scripts picking one of them
per request, and the first pass that reads each path once, in order."""

from __future__ import annotations

import http.client
import threading
import time
from pathlib import Path

from tests.support.engines import LOCAL


def spread_paths(database_url: str, foods: int) -> dict[str, list[str]]:
    """The paths of spread traffic: ``record``, records of ``foods`` random foods;
    ``search``, searches of ~1,150 distinct one- and two-word queries (the first word,
    or two, of random SR28 names)."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        ids = [r[0] for r in conn.execute(
            "SELECT public_id FROM catalogue_food ORDER BY random() LIMIT %s", (foods,)
        )]  # fmt: skip
        names = [r[0] for r in conn.execute(
            "SELECT search_name FROM catalogue_food WHERE source = 'sr28' ORDER BY random()"
        )]  # fmt: skip
    queries: list[str] = []
    seen: set[str] = set()
    for name in names:
        words = [w for w in name.split() if w.isalpha() and len(w) > 2]
        for q in (" ".join(words[:1]), " ".join(words[:2])):
            if q and q not in seen and len(queries) < 1150:
                seen.add(q)
                queries.append(q)
    return {
        "record": [f"/v1/foods/{i}" for i in ids],
        "pgspread": [f"/bench/pgraw/{i}" for i in ids],
        "search": [f"/v1/foods?q={q.replace(' ', '+')}" for q in queries],
    }


def spread_scripts(spread: dict[str, list[str]], directory: Path) -> dict[str, str]:
    """wrk scripts picking a random path of ``spread`` (``spread_paths``) per request."""
    scripts = {}
    for name, paths in spread.items():
        lua = directory / f"spread_{name}.lua"
        listed = ",\n".join(f'  "{p}"' for p in paths)
        lua.write_text(
            f"local paths = {{\n{listed}\n}}\nmath.randomseed(os.time())\n"
            "request = function()\n"
            "  return wrk.format(nil, paths[math.random(#paths)])\nend\n"
        )
        scripts[name] = str(lua)
    return scripts


def first_pass(port: int, paths: list[str], headers: dict[str, str], clients: int) -> float:
    """Read every path of ``paths`` once, in order, over ``clients`` keep-alive
    connections (one thread each); requests per second. The spread's first pass:
    every read a first read, so every record misses every memory and shared copy.
    wrk cannot stop after a number of requests (its main thread sleeps the whole
    duration), so this client does it: one client for every variant and tree, so its
    figures compare with each other, not with wrk's."""
    todo = iter(paths)
    lock = threading.Lock()
    failures: list[str] = []

    def client() -> None:
        conn = http.client.HTTPConnection(LOCAL, port, timeout=10)
        while True:
            with lock:
                path = next(todo, None)
            if path is None:
                break
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                failures.append(f"{path}: {response.status}")
        conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise RuntimeError(f"errors in the first pass: {failures[:5]}")
    return len(paths) / (time.monotonic() - began)
