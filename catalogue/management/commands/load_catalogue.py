"""``manage.py load_catalogue --source sr28|fdc|ifct|fdc-release [--path P] [--limit N] [--if-empty]
[--json]``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalogue.importers.load import SOURCES, catalogue_load
from catalogue.importers.progress import Progress
from catalogue.importers.release_files import ReleaseError
from catalogue.models import Food


class Command(BaseCommand):
    help = (
        "Load foods (USDA SR28 files, the USDA FDC table, the Indian Food Composition "
        "Tables 2017, or USDA's FoodData Central release) into the catalogue; re-runs update."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--source", choices=SOURCES, required=True)
        parser.add_argument(
            "--path",
            type=Path,
            help="SR28 directory, FDC or IFCT csv file, FDC release folder or zip",
        )
        parser.add_argument("--limit", type=int, help="load at most N foods")
        parser.add_argument(
            "--if-empty", action="store_true", help="skip if foods of this source exist"
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
        if options["if_empty"] and _loaded(options["source"]):
            self.stdout.write(
                f"The catalogue already holds {options['source']} foods: nothing loaded "
                "(--if-empty)."
            )
            return
        try:
            report = catalogue_load(
                source=options["source"],
                path=options["path"],
                limit=options["limit"],
                # the raw stream: the bar redraws its line with \r
                progress=Progress(self.stderr._out, json=options["json"]),
                on_skip=lambda skipped: self.stderr.write(f"skipped {skipped}"),
            )
        except (FileNotFoundError, NotADirectoryError, ReleaseError) as exc:
            raise CommandError(str(exc)) from None
        if options["json"]:
            self.stdout.write(json.dumps(dataclasses.asdict(report)))
        else:
            self.stdout.write(report.summary())


def _loaded(source: str) -> bool:
    """Whether foods of ``source`` exist (the release: foods with an FDC id)."""
    if source == "fdc-release":
        return Food.objects.filter(fdc_id__isnull=False).exists()
    return Food.objects.filter(source=source).exists()
