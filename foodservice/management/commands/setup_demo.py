"""``manage.py setup_demo [--host H] [--port P]``, run by ``make run``.

Idempotent: ensures the demo account (demo@example.com, Taster, market US or the first
market offered), then gives it a working key and prints the secret and a ``curl`` line.
The raw secret is never stored, so a re-run rotates the active "demo" key (a new secret
each run) and creates it when there is none. It also prints how to sign in to the
dashboard: the account has no password until one is set through "Forgot your
password?" (issue 24.10), whose e-mail the development server prints on its console.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import CommandParser
from django.utils import timezone

from accounts.audit.actors import Actor
from accounts.models import Account
from accounts.selectors import account_get_by_email
from accounts.services import account_create
from catalogue.selectors import markets_offered
from core import problems
from core.cli import ServiceCommand
from keys.selectors import key_list
from keys.services import key_create, key_rotate

EMAIL = "demo@example.com"
LABEL = "demo"


class Command(ServiceCommand):
    help = "Ensure a demo account with a working key; print the key and a curl line."
    json_output = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)

    def handle(self, *args: Any, **options: Any) -> None:
        account = _demo_account()
        demo_keys = key_list(account=account).active(timezone.now()).filter(label=LABEL)
        if key := demo_keys.first():
            key, secret = key_rotate(key=key, actor=Actor.operator("setup_demo"))
        else:
            key, secret = key_create(
                account=account, label=LABEL, actor=Actor.operator("setup_demo")
            )
        host = "127.0.0.1" if options["host"] in ("0.0.0.0", "::", "") else options["host"]  # noqa: S104
        self.stdout.write(
            f"Demo account {EMAIL} (tier {account.tier}, market {account.market or '-'}), "
            f'key {key.pk} "{LABEL}".\n'
            f"API key (new on every run, shown once): {secret}\n"
            f"Try it:\n"
            f'  curl -H "X-API-Key: {secret}" "http://{host}:{options["port"]}/v1/foods?q=butter"\n'
            + sign_in_help(account, f"http://{host}:{options['port']}")
            + "\nOr set the key for the README's examples (paste in the shell you run them"
            " from):\n"
            f"  export KEY={secret} BASE=http://{host}:{options['port']}"
        )


def sign_in_help(account: Account, base: str) -> str:
    """How to sign in to the dashboard as the demo account."""
    if account.owner.has_usable_password():
        return f"Dashboard: {base}/login/ as {EMAIL} with the password set for it."
    where = (
        "printed on this console"
        if settings.EMAIL_BACKEND.endswith("console.EmailBackend")
        else f"e-mailed to {EMAIL}"
    )
    return (
        f"Dashboard: {EMAIL} has no password yet. Open {base}/password-reset/, enter "
        f"{EMAIL}, and follow the link ({where}) to set one; then sign in at {base}/login/."
    )


def _demo_account() -> Account:
    try:
        return account_get_by_email(email=EMAIL)
    except problems.NotFound:
        pass
    offered = markets_offered()
    market = "US" if "US" in offered else (offered[0] if offered else "")
    return account_create(
        email=EMAIL,
        market=market,
        offered=offered,
        email_verified=True,
        actor=Actor.operator("setup_demo"),
    )
