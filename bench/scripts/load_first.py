"""A first load of the whole catalogue, before and after, in one session (issue 41.3).

    .venv/bin/python bench/scripts/load_first.py [--before /tmp/before]
        [--before-one-command /tmp/start ...] [--no-one-by-one]

Each way runs on a fresh PostgreSQL database of the local server (created, migrated by
its own tree, dropped at the end), one after the other on the same machine:

- ``before``: the tree at ``--before`` (e.g. ``git worktree add /tmp/before <commit>``),
  three loads in the README's order of that time, each its own process;
- ``<tree> (one command)``: a tree whose loader takes several sources at once (issue
  41.3 onwards), loading them in one command;
- ``one by one``: this tree, the same three commands;
- ``one command``: this tree, ``load_catalogue --source sr28 --source fdc --source ifct``.

It prints each way's wall time, its processes' CPU (user + system, the pool's workers
included) and phases, the load average at its start, and whether its catalogue is the
same as the first way's (bench/scripts/catalogue_digest.py).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.scripts.catalogue_digest import digests  # noqa: E402

SERVER = "postgres://postgres@127.0.0.1:5432"
SOURCES = ("sr28", "fdc", "ifct")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def way(name: str, tree: Path, commands: list[list[str]]) -> dict[str, object]:
    """Runs ``commands`` (manage.py arguments) in ``tree`` on a fresh database."""
    database = f"fs_first_{os.getpid()}_{len(name)}"
    url = f"{SERVER}/{database}"
    env = {**os.environ, "DATABASE_URL": url}
    env.pop("REDIS_URL", None)
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", database], check=True)
    try:
        manage = [sys.executable, "manage.py"]
        subprocess.run([*manage, "migrate", "-v0"], cwd=tree, env=env, check=True)
        load_average = os.getloadavg()[0]
        cpu, started = _children_cpu(), time.monotonic()
        phases: list[dict[str, object]] = []
        for command in commands:
            done = subprocess.run(
                [*manage, *command, "--json"],
                cwd=tree,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            phases += [json.loads(line) for line in done.stderr.splitlines() if line[:1] == "{"]
        wall, cpu = time.monotonic() - started, _children_cpu() - cpu
        return {
            "way": name,
            "wall": wall,
            "cpu": cpu,
            "load": load_average,
            "phases": phases,
            "digest": digests(url),
        }
    finally:
        subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", database], check=True)


def _phases(phases: list[dict[str, object]]) -> str:
    totals: dict[str, float] = {}
    for phase in phases:
        key = str(phase["phase"])
        totals[key] = totals.get(key, 0.0) + float(phase["seconds"])  # type: ignore[arg-type]
    return ", ".join(f"{key} {seconds:.1f}" for key, seconds in totals.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="the tree of the way before")
    parser.add_argument(
        "--before-one-command",
        type=Path,
        action="append",
        default=[],
        help="a tree whose loader takes the one command (repeatable)",
    )
    parser.add_argument(
        "--no-one-by-one", action="store_true", help="skip this tree's three commands"
    )
    args = parser.parse_args()
    one_each = [["load_catalogue", "--source", source] for source in SOURCES]
    together = ["load_catalogue", *[arg for s in SOURCES for arg in ("--source", s)]]
    ways = []
    if args.before:
        ways.append(("before (one by one)", args.before, one_each))
    for tree in args.before_one_command:
        ways.append((f"{tree.name} (one command)", tree, [together]))
    if not args.no_one_by_one:
        ways.append(("one by one", ROOT, one_each))
    ways.append(("one command", ROOT, [together]))
    results = [way(name, tree, commands) for name, tree, commands in ways]
    first = results[0]["digest"]
    print("| way | wall | CPU (user + system) | load average at start | phases (s) | catalogue |")
    print("|---|---|---|---|---|---|")
    for result in results:
        same = "same" if result["digest"] == first else "DIFFERS"
        print(
            f"| {result['way']} | {result['wall']:.1f} s | {result['cpu']:.1f} s | "
            f"{result['load']:.2f} | {_phases(result['phases'])} | {same} |"  # type: ignore[arg-type]
        )


if __name__ == "__main__":
    main()
