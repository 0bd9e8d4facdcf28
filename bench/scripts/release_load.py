"""How long ``load_catalogue --source fdc-release`` takes here (issue 42.1), on a synthetic
release of the real layout (bench/scripts/make_fdc_release.py), in one run:

1. **floor**: the release read and joined into records, nothing written (the
   partitioning of the per-food files by fdc_id, the CSV parsing, the join);
2. **load**: the whole load into an empty catalogue on PostgreSQL (a fresh database,
   migrated), phase by phase (read, group, index, render);
3. **reload**: the same release again: the digest finds nothing changed, nothing read;
4. **compare**: the same release again with the digest forgotten: every row read and
   compared, nothing written.

Writes to a database of its own (default ``h3_release_bench``, created and dropped by
this script); the release is synthetic, so no catalogue people use ever holds it.

    .venv/bin/python bench/scripts/make_fdc_release.py var/fdc-release --scale 0.05
    .venv/bin/python bench/scripts/release_load.py var/fdc-release
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

PG = "postgres://postgres@127.0.0.1:5432/"


def _psql(sql: str) -> None:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql], check=True, capture_output=True
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("release", type=Path)
    parser.add_argument("--database", default="h3_release_bench")
    args = parser.parse_args()
    _psql(f"DROP DATABASE IF EXISTS {args.database}")
    _psql(f"CREATE DATABASE {args.database}")
    try:
        _run(args.release, args.database)
    finally:
        from django.db import connections

        connections.close_all()
        _psql(f"DROP DATABASE IF EXISTS {args.database}")


def _run(release: Path, database: str) -> None:
    os.environ["DATABASE_URL"] = PG + database
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from bench.kits.loadkit import machine
    from catalogue.importers.fdc_release import FDCRelease
    from catalogue.importers.load import catalogue_load
    from catalogue.importers.progress import Progress
    from catalogue.importers.records import Skipped
    from catalogue.models import SourceLoad

    call_command("migrate", verbosity=0)
    print(machine())
    size = sum(p.stat().st_size for p in release.glob("*.csv"))
    print(f"release {release}: {size / 1e6:,.0f} MB of CSV")

    started = time.monotonic()
    foods = sum(1 for r in FDCRelease(release).records() if not isinstance(r, Skipped))
    print(
        f"floor (read and join, no database): {foods:,} foods in {time.monotonic() - started:.1f}s"
    )

    phases = io.StringIO()
    report = catalogue_load(
        source="fdc-release", path=release, progress=Progress(phases, json=True)
    )
    print(f"load: {report.summary()}")
    for line in phases.getvalue().splitlines():
        phase = json.loads(line)
        print(
            f"  {phase.get('phase')}: {phase.get('seconds', 0):.1f}s, {phase.get('rows', 0):,} rows"
        )
    again = catalogue_load(source="fdc-release", path=release)
    print(f"reload (digest unchanged): {again.seconds:.1f}s")
    SourceLoad.objects.update(digest="")
    compared = catalogue_load(source="fdc-release", path=release)
    print(f"compare (every row read, nothing written): {compared.summary()}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process (its renderers apart): {peak:,.0f} MB")


if __name__ == "__main__":
    main()
