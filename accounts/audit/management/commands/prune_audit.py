"""``manage.py prune_audit --older-than DAYS [--json]``: the audit log's retention.

Deletes the entries written more than DAYS days ago (the only deletion of audit entries
there is); run it daily from cron with the retention you have chosen (docs/operations.md).
"""

from __future__ import annotations

import argparse
from datetime import timedelta
from typing import Any

from django.core.management.base import CommandParser

from accounts.audit.services import audit_prune
from core.cli import ServiceCommand


class Command(ServiceCommand):
    help = "Delete audit log entries older than DAYS days. Prints {deleted} with --json."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than", type=_days, required=True, metavar="DAYS", help="1 to 36500."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["older_than"]
        deleted = audit_prune(older_than=timedelta(days=days))
        self.emit(
            {"deleted": deleted, "older_than_days": days},
            human=f"Deleted {deleted} audit entries older than {days} days.",
        )


def _days(value: str) -> int:
    try:
        days = int(value)
    except ValueError:
        days = 0
    if not 1 <= days <= 36500:
        raise argparse.ArgumentTypeError(f"DAYS must be a whole number from 1 to 36500: {value!r}")
    return days
