"""Loading the full catalogue in a given order, on a fresh PostgreSQL database, then
again with nothing changed (issue 28, point 1).

    .venv/bin/python bench/scripts/load_orders.py --order sr28,fdc,ifct [--keep]

Creates ``fs_load_<pid>`` on the server of ``--server`` (default the local one), runs
``manage.py migrate`` then ``manage.py load_catalogue --json`` per source (each its own
process, as an operator runs it), then every source again (a reload: nothing changed),
and prints each step's seconds and phases with the load average. Drops the database
unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(args: list[str], env: dict[str, str]) -> tuple[float, list[dict[str, object]]]:
    started = time.monotonic()
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    phases = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    return time.monotonic() - started, [p for p in phases if "phase" in p]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--order", default="sr28,fdc,ifct")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--name", default=f"fs_load_{os.getpid()}")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--no-reload", action="store_true")
    options = parser.parse_args()
    url = f"{options.server}/{options.name}"
    env = {**os.environ, "DATABASE_URL": url}
    env.pop("REDIS_URL", None)
    python = sys.executable
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", options.name], check=True)
    try:
        run([python, "manage.py", "migrate", "-v0"], env)
        passes = ["load"] if options.no_reload else ["load", "reload"]
        for label in passes:
            total = 0.0
            for source in options.order.split(","):
                cmd = [python, "manage.py", "load_catalogue", "--source", source, "--json"]
                seconds, phases = run(cmd, env)
                total += seconds
                parts = ", ".join(f"{p['phase']} {p['seconds']}s" for p in phases)
                print(f"{label} {source}: {seconds:.1f}s ({parts})", flush=True)
            print(f"{label} total {total:.1f}s; {os.getloadavg()}", flush=True)
    finally:
        if not options.keep:
            subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", options.name])


if __name__ == "__main__":
    main()
