"""Drop an account's keys from the shared key cache when its owner is deactivated or
reactivated (issue 11.1), whoever saves the user: the admin, a command, any code.

``is_active`` false is the one state that stops an account: every key answers the opaque
401 from the next request on, on every worker; reactivating restores the keys as they
were (revoked and expired ones stay so). The tombstones are written *before* the row
changes (``pre_save``), so if the shared cache is unreachable the save is refused with
the 503 problem and nothing is written. ``QuerySet.update()`` sends no signal: change
``is_active`` with ``save()`` (as the admin does).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models.signals import pre_save
from django.dispatch import receiver

from accounts.models import Account, User
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
