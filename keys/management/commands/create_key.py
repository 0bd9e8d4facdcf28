"""``manage.py create_key EMAIL [--label L] [--json]``: the one command that prints a
new key's secret, once (spec 2.3)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from accounts.selectors import account_get_by_email
from foodservice.cli import ServiceCommand
from keys.services import key_create


class Command(ServiceCommand):
    help = "Create an API key for the account of EMAIL and print its secret once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("email")
        parser.add_argument("--label", default="default", help='Default: "default".')

    def handle(self, *args: Any, **options: Any) -> None:
        account = account_get_by_email(email=options["email"])
        key, secret = key_create(account=account, label=options["label"])
        self.emit(
            {"id": key.pk, "label": key.label, "secret": secret},
            human=f'Created key {key.pk} "{key.label}" for {account.owner.email}.\n'
            f"Secret (shown once, store it now): {secret}",
        )
