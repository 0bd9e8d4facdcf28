"""``manage.py create_key EMAIL [--label L] [--expires-in DAYS] [--json]``: the one
command that prints a new key's secret, once (spec 2.3). ``--expires-in`` gives the key
an expiry time, after which it is refused like a revoked key (spec 3.1, "expired")."""

from __future__ import annotations

import argparse
from datetime import timedelta
from typing import Any

from django.core.management.base import CommandParser
from django.utils import timezone

from accounts.audit.actors import Actor
from accounts.selectors import account_get_by_email
from core.cli import ServiceCommand, iso
from keys.services import key_create


class Command(ServiceCommand):
    help = "Create an API key for the account of EMAIL and print its secret once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("email")
        parser.add_argument("--label", default="default", help='Default: "default".')
        parser.add_argument(
            "--expires-in", type=_days, metavar="DAYS", help="Expire after DAYS (1-3650) days."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        account = account_get_by_email(email=options["email"])
        days = options["expires_in"]
        expires_at = timezone.now() + timedelta(days=days) if days else None
        key, secret = key_create(
            account=account,
            label=options["label"],
            expires_at=expires_at,
            actor=Actor.operator("create_key"),
        )
        expiry = f" It expires {iso(expires_at)}." if expires_at else ""
        self.emit(
            {"id": key.pk, "label": key.label, "secret": secret},
            human=f'Created key {key.pk} "{key.label}" for {account.owner.email}.{expiry}\n'
            f"Secret (shown once, store it now): {secret}",
        )


def _days(value: str) -> int:
    try:
        days = int(value)
    except ValueError:
        days = 0
    if not 1 <= days <= 3650:
        raise argparse.ArgumentTypeError(f"DAYS must be a whole number from 1 to 3650: {value!r}")
    return days
