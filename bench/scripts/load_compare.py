"""The mixed load of bench/scripts/load.py against a baseline checkout, in one session (issue 13).

Runs ``bench/scripts/load.py --no-write`` alternately with the servers serving a baseline
checkout's code (``--base``, e.g. ``git archive <commit> | tar -x -C /tmp/base``) and
this tree's, ``--rounds`` times each, on the same database and with the same harness
(this tree's client, accounts and checks), and reports each run's mix-phase figures
(all requests: req/s, p50, p95, p99) and the ratio of the medians.

    .venv/bin/python bench/scripts/load_compare.py --base /tmp/base \\
        --database-url postgres://postgres@127.0.0.1:5432/DB [--rounds 2] [--seconds 30]

The database holds the full catalogue migrated with this tree's code (the baseline's
code reads the same tables). Figures go to bench/RESULTS.md "## Load against the
baseline" unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from bench.kits import loadkit

ROW = re.compile(
    r"^\| \*\*all\*\* \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$", re.M
)


def run(server_root: str | None, args: argparse.Namespace) -> dict[str, float]:
    command = [sys.executable, "bench/scripts/load.py", "--no-write"]
    command += ["--database-url", args.database_url]
    command += ["--seconds", str(args.seconds), "--rounds", "1", "--ratio-seconds", "4"]
    if server_root:
        command += ["--server-root", server_root]
    done = subprocess.run(command, cwd=loadkit.ROOT, capture_output=True, text=True)
    found = ROW.search(done.stdout)
    if not found:
        raise RuntimeError(f"load.py failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    checks = "PASS" if done.returncode == 0 else "FAIL"
    n, rate, p50, p95, p99 = (float(v) for v in found.groups())
    return {"requests": n, "rate": rate, "p50": p50, "p95": p95, "p99": p99, "checks": checks}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the baseline checkout's directory")
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    load_before = loadkit.loadavg()
    runs: dict[str, list[dict]] = {"baseline": [], "this tree": []}
    for round_ in range(args.rounds):
        for name, root in (("baseline", args.base), ("this tree", None)):
            runs[name].append(run(root, args))
            r = runs[name][-1]
            print(
                f"  round {round_ + 1} {name}: {r['rate']:.0f} req/s, p95 {r['p95']:.1f} ms, "
                f"checks {r['checks']}",
                flush=True,
            )
    medians = {
        name: {k: statistics.median(r[k] for r in rs) for k in ("rate", "p50", "p95", "p99")}
        for name, rs in runs.items()
    }
    rows = [
        f"| {name} | {', '.join(str(round(r['rate'])) for r in runs[name])} | {m['rate']:.0f} | "
        f"{m['p50']:.1f} | {m['p95']:.1f} | {m['p99']:.1f} | "
        f"{', '.join(r['checks'] for r in runs[name])} |"
        for name, m in medians.items()
    ]
    ratio = medians["this tree"]["rate"] / medians["baseline"]["rate"]
    p95 = medians["this tree"]["p95"] / medians["baseline"]["p95"]
    text = "\n".join(
        [
            f"Run {loadkit.machine()}; load average before {load_before}, after "
            f"{loadkit.loadavg()}.",
            "",
            "`bench/scripts/load_compare.py`: `bench/scripts/load.py` mix phase "
            f"({args.seconds:.0f} s, every account, 16 clients), alternately serving the "
            f"baseline `{args.base}` and this tree, {args.rounds} runs each, same database "
            f"`{args.database_url.rsplit('/', 1)[-1]}` and harness. Medians of the runs:",
            "",
            "| server code | req/s per run | req/s | p50 ms | p95 ms | p99 ms | load.py checks |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
            f"Throughput ratio this tree / baseline: **{ratio:.2f}x** (target >= 3x); "
            f"p95 ratio **{p95:.2f}** (target < 1).",
        ]
    )
    print()
    print(text)
    if not args.no_write:
        loadkit.write_section("## Load against the baseline", text)
    return 0 if ratio >= 3 and p95 < 1 else 1


if __name__ == "__main__":
    sys.exit(main())
