"""Hostile inputs against ordinary ones (issues 24.1 and 36.2), on a loaded PostgreSQL
catalogue: what the worst input costs on ``GET /v1/foods``, ``GET /v1/suggest`` and
``POST /v1/analysis``, and what a paying account sending them does to another's search.

    .venv/bin/python bench/scripts/search_worst.py --database-url postgres://.../fs_full
    .venv/bin/python bench/scripts/search_worst.py --database-url ... --before /tmp/main-export
    .venv/bin/python bench/scripts/search_worst.py --database-url ... --contention

**Cost** (always): each code tree (this one, and with ``--before DIR`` the code exported
in DIR: ``git archive main | tar -x -C DIR``) runs in a process of its own through the
whole view stack (Django's test client: key check, parsing, search, rendering), the
worker memory off (every request computes its answer) and no metering. Every input is
sent ``--rounds`` times, the inputs interleaved round by round, so the machine's noise
falls on all alike; with ``--before`` each tree runs twice, in the order this, before,
before, this, and each input keeps the lower of its two figures (the tree measured first
paid more). Time: the median request; CPU: the worker's (``process_time``) plus
its PostgreSQL backend's (``/proc/<pid>/schedstat``, nanoseconds) per request. Each
input is set against the median of its endpoint's ordinary inputs; an analysis per
line, against a body of as many ordinary lines (tests/support/judged/analysis_set.py).

**Contention** (``--contention``): one gunicorn as in production (gunicorn.conf.py, the
Redis meter on a throwaway key prefix, worker memory off), a Head Chef account searching
ordinary queries one after another, first alone, then while a Sous Chef key sends the
hostile inputs within its burst limit (``--rate``, 10/s as the tier allows). The Head
Chef's p50/p95 in both phases, and their ratio.

Figures are appended under "## Hostile inputs" in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The harness (bench.kits, tests.support) is this tree's whichever tree is measured: ROOT
# comes first while it is imported, then last, so that a child measuring another tree
# (run_child puts that tree first on PYTHONPATH) imports the code it measures from there.
sys.path.insert(0, str(ROOT))
from bench.kits import worst_inputs as inputs  # noqa: E402
from bench.kits.loadkit import machine, write_section  # noqa: E402

sys.path.remove(str(ROOT))
sys.path.append(str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--before", help="a checkout of the old code to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--contention", action="store_true")
    parser.add_argument("--seconds", type=float, default=20, help="per contention phase")
    parser.add_argument("--rate", type=float, default=9.0, help="hostile requests a second")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_all(args.rounds)))
        return
    body = [f"{machine()}; `bench/scripts/search_worst.py --rounds {args.rounds}`.", ""]
    after = run_child(ROOT, args.database_url, args.rounds)
    before: dict[str, dict] = {}
    if args.before:
        # The tree measured first paid 20-35 % more in these runs, whichever it was
        # (bench/RESULTS.md, "Hostile inputs at the end of this part", 2026-11-29): each
        # tree runs twice, in the order this, before, before, this, and each input keeps
        # the lower of its two figures.
        before = run_child(Path(args.before), args.database_url, args.rounds)
        before = _lower(before, run_child(Path(args.before), args.database_url, args.rounds))
        after = _lower(after, run_child(ROOT, args.database_url, args.rounds))
    body += cost_table(after, before)
    if args.contention:
        from bench.kits.worst_contention import contention

        trees = [("this tree", ROOT)] + ([("before", Path(args.before))] if args.before else [])
        for name, code in trees:
            found = contention(args.database_url, root=code, seconds=args.seconds, rate=args.rate)
            body += ["", f"Contention, {name}:", "", *found]
    print("\n".join(body))
    write_section("## Hostile inputs (issue 36.2)", "\n".join(body))


def run_child(code: Path, url: str, rounds: int) -> dict[str, dict]:
    """The figures of every input, measured by ``code`` in a process of its own."""
    env = os.environ | {
        "DATABASE_URL": url,
        "METERING_ENABLED": "0",
        "CATALOGUE_VERSION_SECONDS": "0",
        "LOG_LEVEL": "ERROR",
        "PYTHONPATH": f"{code}:{ROOT}",
    }
    env.pop("REDIS_URL", None)
    command = [sys.executable, str(Path(__file__).resolve()), "--database-url", url]
    out = subprocess.run(
        [*command, "--child", str(code), "--rounds", str(rounds)],
        cwd=code, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure_all(rounds: int) -> dict[str, dict]:
    """In the child: every input ``rounds`` times, interleaved; figures per input."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
    import django

    django.setup()
    from bench.kits.worst_probe import Probe

    probe = Probe()
    seen: dict[str, list[tuple[int, float, float]]] = {c.key: [] for c in inputs.CASES}
    for _ in range(rounds):
        for case in inputs.CASES:
            seen[case.key].append(probe.send(case))
    return {name: _figures(samples) for name, samples in seen.items()}


def _lower(first: dict[str, dict], second: dict[str, dict]) -> dict[str, dict]:
    """Per input, the lower ms and CPU ms of two runs of one tree (the first's status)."""
    return {
        key: figures
        | {"ms": min(figures["ms"], second[key]["ms"])}
        | {"cpu_ms": min(figures["cpu_ms"], second[key]["cpu_ms"])}
        for key, figures in first.items()
    }


def _figures(samples: list[tuple[int, float, float]]) -> dict:
    return {
        "status": samples[-1][0],
        "ms": round(statistics.median(s[1] for s in samples), 2),
        "cpu_ms": round(statistics.mean(s[2] for s in samples), 2),
    }


def cost_table(after: dict[str, dict], before: dict[str, dict]) -> list[str]:
    """Rows of every input: status, ms, CPU ms, and both against its endpoint's
    ordinary inputs (per line for an analysis); the worst accepted ratio per endpoint."""
    lines = [
        "| endpoint | input | status | ms | CPU ms | x ordinary (time) | x ordinary (CPU) |"
        + (" before: status / ms / CPU ms |" if before else ""),
        "|---|---|---|---|---|---|---|" + ("---|" if before else ""),
    ]
    worst: dict[str, tuple[float, float, str]] = {}
    for case in inputs.CASES:
        got, base = after[case.key], _ordinary(after, case.group)
        per = case.lines or 1
        x_time = got["ms"] / per / base["ms"]
        x_cpu = got["cpu_ms"] / per / base["cpu_ms"]
        cells = [case.group, case.name, got["status"], got["ms"], got["cpu_ms"]]
        cells += [f"{x_time:.2f}", f"{x_cpu:.2f}"]
        if before:
            old = before.get(case.key)
            cells.append(f"{old['status']} / {old['ms']} / {old['cpu_ms']}" if old else "")
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
        if got["status"] == 200 and not case.ordinary:
            current = worst.get(case.group, (0.0, 0.0, ""))
            worst[case.group] = max(current, (max(x_time, x_cpu), x_cpu, case.name))
    lines.append("")
    for endpoint, (ratio, _, name) in sorted(worst.items()):
        lines.append(f"- worst accepted on {endpoint}: {name!r}, {ratio:.2f}x ordinary")
    return lines


def _ordinary(figures: dict[str, dict], group: str) -> dict[str, float]:
    """The median of ``group``'s ordinary inputs (per line for an analysis)."""
    cases = [c for c in inputs.CASES if c.group == group and c.ordinary]
    return {
        field: statistics.median(figures[c.key][field] / (c.lines or 1) for c in cases)
        for field in ("ms", "cpu_ms")
    }


if __name__ == "__main__":
    main()
