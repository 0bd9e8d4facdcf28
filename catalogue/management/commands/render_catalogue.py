"""``manage.py render_catalogue``: pre-render every food's responses (issue 13)."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand

from catalogue.delivery.rendering import render_all


class Command(BaseCommand):
    help = (
        "Render every food's record and summary once (load_catalogue does it after a "
        "load); reads render what is missing on their own, so this only saves them the work."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        count = render_all()
        self.stdout.write(f"{count:,} foods rendered in {time.monotonic() - started:.1f}s")
