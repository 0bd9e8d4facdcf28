"""``manage.py list_keys EMAIL [--json]``: every key of the account, revoked and expired
ones included. Never a hash or a secret."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser
from django.utils import timezone

from accounts.selectors import account_get_by_email
from core.cli import ServiceCommand, iso
from keys.selectors import key_list


class Command(ServiceCommand):
    help = "List the API keys of the account of EMAIL (id, label, state, created, last used)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("email")

    def handle(self, *args: Any, **options: Any) -> None:
        account = account_get_by_email(email=options["email"])
        now = timezone.now()
        rows = [
            {
                "id": key.pk,
                "label": key.label,
                "state": key.state_at(now).value,
                "created": iso(key.created_at),
                "last_used": iso(key.last_used_at),
            }
            for key in key_list(account=account)
        ]
        lines = [f"{'ID':>6}  {'STATE':<8} {'CREATED':<21} {'LAST USED':<21} LABEL"]
        lines += [
            f"{r['id']:>6}  {r['state']:<8} {r['created']:<21} {r['last_used'] or 'never':<21} "
            f"{r['label']}"
            for r in rows
        ]
        human = "\n".join(lines) if rows else f"{account.owner.email} has no keys."
        self.emit({"keys": rows}, human=human)
