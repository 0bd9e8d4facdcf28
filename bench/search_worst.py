"""Worst search inputs against an ordinary search (issue 24.1), on a loaded PostgreSQL
catalogue: time and memory of ``GET /v1/foods?q=...`` through the whole view stack.

    .venv/bin/python bench/search_worst.py --database-url postgres://.../fs_full_copy
    .venv/bin/python bench/search_worst.py --database-url ... --before /tmp/main-export

Each input runs in a fresh process with a fresh database connection, so its peaks are its
own: the worker's peak RSS growth (``ru_maxrss``) and the PostgreSQL backend's
(``VmHWM`` - ``VmRSS`` before, from /proc, same host). Time: the input's first
request (nothing of it cached), and the median of 3 more. ``--before DIR`` also runs
the inputs that the old code accepted with the code exported in DIR
(``git archive main | tar -x -C DIR``), for the before/after ratio in the same run.
Figures are appended under "## Worst search inputs" in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import string
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KM = "\u3316"  # NFKD: six letters

_rng = random.Random(24)


def _junk(n: int) -> str:
    return "".join(_rng.choice(string.ascii_lowercase) for _ in range(n))


INPUTS: list[tuple[str, str]] = [
    ("ordinary: chicken breast", "chicken breast"),
    ("ordinary typo: chiken brest", "chiken brest"),
    ("200 x U+3316 (1,200 letters once normalised)", KM * 200),
    ("6 words of 32 x U+3316", " ".join([KM * 32] * 6)),
    ("6 unknown words of 30 letters (longest corrected)", " ".join(_junk(30) for _ in range(6))),
    ("6 unknown words of 31 letters (not corrected)", " ".join(_junk(31) for _ in range(6))),
    ("6 words of 30 common letters", " ".join(["chickenbreastchickenbreastchic"] * 6)),
    ("100 one-letter words", " ".join("abcdefghij" * 10)),
    ("50 unknown three-letter words", " ".join(_junk(3) for _ in range(50))),
    ("200 digits", "1234567890" * 20),
]
BEFORE = {"ordinary: chicken breast", "ordinary typo: chiken brest", "6 words of 32 x U+3316"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--before", help="a checkout of the old code to compare with")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(measure_one(INPUTS[args.one][1])))
        return
    rows = []
    load = os.getloadavg()
    for index, (name, _) in enumerate(INPUTS):
        after = run(index, args.database_url, ROOT)
        before = run(index, args.database_url, Path(args.before)) if (
            args.before and name in BEFORE
        ) else None  # fmt: skip
        rows.append((name, after, before))
        print(name, after, before, flush=True)
    write_results(rows, load, bool(args.before))


def run(index: int, url: str, code: Path) -> dict:
    env = os.environ | {"DATABASE_URL": url, "METERING_ENABLED": "0", "PYTHONPATH": str(code)}
    env.pop("REDIS_URL", None)
    script = Path(__file__).resolve()
    out = subprocess.run(
        [sys.executable, str(script), "--database-url", url, "--one", str(index)],
        cwd=code, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure_one(q: str) -> dict:
    import resource
    import statistics
    import time

    sys.path.insert(0, os.environ["PYTHONPATH"])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
    import django

    django.setup()
    from django.db import connection
    from django.test import Client

    from accounts.services import account_create
    from keys.services import key_create

    account = account_create(
        email=f"worst{random.randrange(10**9)}@example.com", tier="head_chef", market="US"
    )
    client = Client(HTTP_X_API_KEY=key_create(account=account, label="bench")[1])
    client.get("/v1/foods", {"q": "milk"})  # connection, caches: not this input's cost
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    backend_before = _proc_kb(backend, "VmRSS")
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    status = client.get("/v1/foods", {"q": q}).status_code  # its first time: no cache
    first = (time.perf_counter() - start) * 1000
    times = []
    for _ in range(3):
        start = time.perf_counter()
        client.get("/v1/foods", {"q": q})
        times.append((time.perf_counter() - start) * 1000)
    rss_growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    return {
        "status": status,
        "ms": round(first, 1),
        "again_ms": round(statistics.median(times), 1),
        "worker_mb": round(rss_growth / 1024, 1),
        "backend_mb": round((_proc_kb(backend, "VmHWM") - backend_before) / 1024, 1),
    }


def _proc_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def write_results(rows: list, load: tuple[float, ...], with_before: bool) -> None:
    base = rows[0][1]["ms"]
    lines = [
        "",
        "## Worst search inputs (issue 24.1)",
        "",
        f"{dt.date.today()}, {platform.node()}, {os.cpu_count()} cores, load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; `bench/search_worst.py` on the full "
        "catalogue (PostgreSQL), one run: `GET /v1/foods` through the view stack, the input's "
        "first request (nothing cached; `again ms`: median of 3 more); memory is each "
        "input's peak growth in a fresh process (worker `ru_maxrss`, PostgreSQL backend `VmHWM`).",
        "",
        "| input | status | ms | x ordinary | again ms | worker MB | backend MB |"
        + (" before: status / ms / worker MB / backend MB |" if with_before else ""),
        "|---|---|---|---|---|---|---|" + ("---|" if with_before else ""),
    ]
    for name, after, before in rows:
        cells = [name, after["status"], after["ms"], f"{after['ms'] / base:.2f}",
                 after["again_ms"], after["worker_mb"], after["backend_mb"]]  # fmt: skip
        if with_before:
            cells.append(
                f"{before['status']} / {before['ms']} / {before['worker_mb']} / "
                f"{before['backend_mb']}"
                if before
                else "(not run)"
            )
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    with (ROOT / "bench" / "RESULTS.md").open("a") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
