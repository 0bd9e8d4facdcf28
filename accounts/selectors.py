"""Reads of accounts."""

from __future__ import annotations

from accounts.models import Account
from foodservice.core import problems


def account_get_by_email(*, email: str) -> Account:
    """The account of the user with ``email`` (any case), or the not-found problem."""
    account = (
        Account.objects.select_related("owner").filter(owner__email=email.strip().lower()).first()
    )
    if account is None:
        raise problems.NotFound(f"No account with e-mail {email!r}.")
    return account


def markets_offered() -> list[str]:
    """The market codes an account may choose, from the catalogue."""
    return [code for code, _ in markets_offered_named()]


def markets_offered_named() -> list[tuple[str, str]]:
    """The markets an account may choose as ``(code, name)``, from the catalogue."""
    from catalogue.selectors import markets_offered_named as catalogue_markets

    return catalogue_markets()
