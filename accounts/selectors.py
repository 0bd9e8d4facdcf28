"""Reads of accounts."""

from __future__ import annotations

from accounts.models import Account
from core import problems


def account_get_by_email(*, email: str) -> Account:
    """The account of the user with ``email`` (any case), or the not-found problem."""
    account = (
        Account.objects.select_related("owner").filter(owner__email=email.strip().lower()).first()
    )
    if account is None:
        raise problems.NotFound(f"No account with e-mail {email!r}.")
    return account
