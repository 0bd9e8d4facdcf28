"""``manage.py rotate_key KEY_ID [--json]``: a fresh secret, printed once; the old one
fails from the next request on (spec 3.1)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from accounts.audit.actors import Actor
from core.cli import ServiceCommand
from keys.selectors import key_get
from keys.services import key_rotate


class Command(ServiceCommand):
    help = "Rotate an active API key: keeps id, label and usage; prints the new secret once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("key_id")

    def handle(self, *args: Any, **options: Any) -> None:
        key, secret = key_rotate(
            key=key_get(key_id=options["key_id"]), actor=Actor.operator("rotate_key")
        )
        self.emit(
            {"id": key.pk, "label": key.label, "secret": secret},
            human=f'Rotated key {key.pk} "{key.label}"; the old secret no longer works.\n'
            f"New secret (shown once, store it now): {secret}",
        )
