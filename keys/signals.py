"""Drop an account's keys from the shared key cache when its owner is deactivated or
reactivated (issue 11.1), whoever saves the user: the admin, a command, any code; and
when its tier, limits or market change (``accounts.signals.account_limits_changed``).

``is_active`` false is the one state that stops an account: every key answers the opaque
401 from the next request on, on every worker; reactivating restores the keys as they
were (revoked and expired ones stay so). The tombstones are written *before* the row
changes (``pre_save``), so if the shared cache is unreachable the save is refused with
the 503 problem and nothing is written. They are written again, with a new epoch of the
account, once the row is written (``post_save``, deferred to the commit inside a
transaction): outside ``atomic()`` "after the commit" would otherwise come *before*
the row changed (Django runs ``on_commit`` at once in autocommit), and a worker reading
the row in that gap would keep the still-active principal under the newest epoch
(issue 24.2). ``QuerySet.update()`` sends no signal: change ``is_active`` with
``save()`` (as the admin does).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from accounts.models import Account, User
from accounts.signals import account_limits_changed
from keys.services import keys_forget_account


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="keys-owner-is-active")
def forget_keys_when_owner_activity_changes(
    sender: type[User], instance: User, update_fields: frozenset[str] | None = None, **_: Any
) -> None:
    if instance.pk is None or (update_fields is not None and "is_active" not in update_fields):
        return  # a new user has no keys; a last_login update leaves is_active alone
    stored = sender.objects.filter(pk=instance.pk).values_list("is_active", flat=True).first()
    if stored is None or stored == instance.is_active:
        return
    account = Account.objects.filter(owner_id=instance.pk).first()
    if account is not None:
        keys_forget_account(account=account)
        instance._keys_forget_again = account  # type: ignore[attr-defined]


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="keys-owner-is-active-saved")
def forget_keys_again_once_the_row_is_written(sender: type[User], instance: User, **_: Any) -> None:
    """The second invalidation, after the row write: from here on a worker that misses
    its copy reads the new ``is_active``, so the epoch it is tagged with stays current."""
    account = instance.__dict__.pop("_keys_forget_again", None)
    if account is not None:
        keys_forget_account(account=account)


@receiver(account_limits_changed, dispatch_uid="keys-account-limits-changed")
def forget_keys_when_limits_change(sender: type[Account], account: Account, **_: Any) -> None:
    """The account's tier, limits or market changed: its cached principals carry the
    old ones (accounts.signals; issue 37: accounts no longer imports keys)."""
    keys_forget_account(account=account)
