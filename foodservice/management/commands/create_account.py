"""``manage.py create_account EMAIL [--tier T] [--market CC] [--password PW] [--json]``.

A wiring command (issue 37): the market must be one the catalogue offers, and the
accounts app, below the catalogue, learns those from its caller."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from accounts.audit.actors import Actor
from accounts.services import account_create
from accounts.tiers import Tier
from catalogue.selectors import markets_offered
from core.cli import ServiceCommand


class Command(ServiceCommand):
    help = "Create a user and their account. Prints {id, email, tier, market} with --json."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("email")
        parser.add_argument("--tier", default=Tier.TASTER.value, help="Default: taster.")
        parser.add_argument("--market", default="", help="ISO 3166-1 alpha-2, e.g. US.")
        parser.add_argument("--password", help="Without it the user cannot sign in yet.")

    def handle(self, *args: Any, **options: Any) -> None:
        account = account_create(
            email=options["email"],
            password=options["password"],
            tier=options["tier"],
            market=options["market"],
            offered=markets_offered(),
            email_verified=True,  # an operator vouches for the address
            actor=Actor.operator("create_account"),
        )
        email, market = account.owner.email, account.market or None
        self.emit(
            {"id": account.pk, "email": email, "tier": account.tier, "market": market},
            human=f"Created account {account.pk} for {email} "
            f"(tier {account.tier}, market {market or 'not selected'}).",
        )
