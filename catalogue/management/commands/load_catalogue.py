"""``manage.py load_catalogue --source sr28|fdc|ifct|fdc-release [--source ...] [--path P]
[--limit N] [--if-empty] [--render | --no-render] [--json]``."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalogue.importers.load import RENDER_AT_LOAD_MAX, SOURCES, catalogue_load_sources
from catalogue.importers.progress import Progress
from catalogue.importers.release_files import ReleaseError
from catalogue.models import Food


class Command(BaseCommand):
    help = (
        "Load foods (USDA SR28 files, the USDA FDC table, the Indian Food Composition "
        "Tables 2017, or USDA's FoodData Central release) into the catalogue; re-runs update."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--source",
            choices=SOURCES,
            required=True,
            action="append",
            help="repeat to load several sources in one transaction, in the order given "
            "(a first load's fastest way: indexes built once for all)",
        )
        parser.add_argument(
            "--path",
            type=Path,
            help="SR28 directory, FDC or IFCT csv file, FDC release folder or zip (one --source)",
        )
        parser.add_argument("--limit", type=int, help="load at most N foods")
        parser.add_argument(
            "--if-empty", action="store_true", help="skip the sources whose foods exist"
        )
        parser.add_argument(
            "--render",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="render the changed foods' responses now (default: when at most "
            f"{RENDER_AT_LOAD_MAX:,}; the others are rendered by their first read or by "
            "manage.py render_catalogue)",
        )
        parser.add_argument(
            "--json",
            action="store_true",
            help="progress as one JSON object per phase on stderr (no bars), and the "
            "summary as JSON on stdout",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["limit"] is not None and options["limit"] < 1:
            raise CommandError("--limit must be at least 1")
        sources = list(dict.fromkeys(options["source"]))
        if options["path"] is not None and len(sources) > 1:
            raise CommandError("--path names the files of one --source")
        if options["if_empty"]:
            for source in [s for s in sources if _loaded(s)]:
                self.stdout.write(
                    f"The catalogue already holds {source} foods: nothing loaded (--if-empty)."
                )
                sources.remove(source)
            if not sources:
                return
        try:
            reports, rendered = catalogue_load_sources(
                sources=sources,
                paths={sources[0]: options["path"]} if options["path"] else None,
                limit=options["limit"],
                # the raw stream: the bar redraws its line with \r
                progress=Progress(self.stderr._out, json=options["json"]),
                on_skip=lambda skipped: self.stderr.write(f"skipped {skipped}"),
                render=options["render"],
            )
        except (FileNotFoundError, NotADirectoryError, ReleaseError) as exc:
            raise CommandError(str(exc)) from None
        if len(reports) == 1:  # one source: its report, as ever
            reports = [dataclasses.replace(reports[0], rendered=rendered)]
        if options["json"]:
            summary = [dataclasses.asdict(report) for report in reports]
            several = {"sources": summary, "rendered": rendered}
            self.stdout.write(json.dumps(summary[0] if len(summary) == 1 else several))
            return
        for report in reports:
            self.stdout.write(report.summary())
        if len(reports) > 1:
            self.stdout.write(f"{rendered:,} foods rendered")


def _loaded(source: str) -> bool:
    """Whether foods of ``source`` exist (the release: foods with an FDC id)."""
    if source == "fdc-release":
        return Food.objects.filter(fdc_id__isnull=False).exists()
    return Food.objects.filter(source=source).exists()
