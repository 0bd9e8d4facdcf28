"""``manage.py revoke_key KEY_ID [--json]``: the key stops authenticating on the next
request (spec 3.1). Revoking a revoked key is not an error."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from accounts.audit.actors import Actor
from core.cli import ServiceCommand
from keys.selectors import key_get
from keys.services import key_revoke


class Command(ServiceCommand):
    help = "Revoke an API key. Prints {id, state} with --json."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("key_id")

    def handle(self, *args: Any, **options: Any) -> None:
        key = key_revoke(key=key_get(key_id=options["key_id"]), actor=Actor.operator("revoke_key"))
        state = key.state.value
        self.emit(
            {"id": key.pk, "state": state},
            human=f'Key {key.pk} "{key.label}" is {state}.',
        )
