"""keys/services.py: create, rotate, revoke, rename (spec 2.1, 3.1)."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.db import connection

from core import problems
from keys.models import ApiKey, KeyState
from keys.services import key_create, key_rename, key_revoke, key_rotate
from tests.factories import AccountFactory, ApiKeyFactory
from tests.support.keys import principal_of


@pytest.mark.django_db
def test_create_returns_the_secret_once_and_stores_only_its_hash(account):
    key, secret = key_create(account=account, label="  my   phone app ")
    assert key.label == "my phone app"
    assert key.state == KeyState.ACTIVE
    assert key.hint == secret[-4:]
    assert principal_of(secret).key_id == key.pk
    assert not ApiKey.objects.filter(secret_hash=secret).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("label", ["", "   ", "x" * 101])
def test_create_refuses_an_empty_or_overlong_label(account, label):
    with pytest.raises(problems.ValidationFailed):
        key_create(account=account, label=label)


@pytest.mark.django_db
def test_a_sixth_active_key_is_refused(account):
    for n in range(5):
        key_create(account=account, label=f"k{n}")
    with pytest.raises(problems.KeyLimitReached):
        key_create(account=account, label="sixth")
    assert ApiKey.objects.filter(account=account).count() == 5


@pytest.mark.django_db
def test_revoked_and_expired_keys_free_their_slot(account, clock):
    keys = [key_create(account=account, label=f"k{n}")[0] for n in range(4)]
    ApiKeyFactory(account=account, expires_at=dt.datetime(2026, 3, 10, 15, tzinfo=dt.UTC))
    with pytest.raises(problems.KeyLimitReached):
        key_create(account=account, label="no room")
    key_revoke(key=keys[0])
    key_create(account=account, label="after revoke")
    clock.shift(3600)  # the factory key expires at 15:00
    key_create(account=account, label="after expiry")
    assert ApiKey.objects.filter(account=account).count() == 7


@pytest.mark.django_db(transaction=True)
def test_concurrent_creates_on_four_keys_give_one_key_and_refusals():
    account = AccountFactory()
    for n in range(4):
        key_create(account=account, label=f"k{n}")
    racers = 8
    barrier = threading.Barrier(racers)
    outcomes: list[str] = []

    def create(label: str) -> None:
        barrier.wait()
        try:
            key_create(account=account, label=label)
            outcomes.append("created")
        except problems.KeyLimitReached:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=create, args=(f"racer{n}",)) for n in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["created"] + ["refused"] * (racers - 1)
    assert ApiKey.objects.filter(account=account).count() == 5


@pytest.mark.django_db
def test_rotation_keeps_id_label_and_account_and_kills_the_old_secret(key_and_secret, clock):
    key, old = key_and_secret
    assert principal_of(old) is not None
    _, new = key_rotate(key=key)
    assert new != old
    stored = ApiKey.objects.get(pk=key.pk)
    assert (stored.pk, stored.label, stored.account_id) == (key.pk, "test key", key.account_id)
    assert stored.rotated_at is not None and stored.hint == new[-4:]
    assert principal_of(old) is None
    assert principal_of(new).key_id == key.pk


@pytest.mark.django_db
def test_a_revoked_key_cannot_be_rotated(key_and_secret):
    key, secret = key_and_secret
    key_revoke(key=key)
    with pytest.raises(problems.KeyNotActive):
        key_rotate(key=key)
    assert principal_of(secret) is None


@pytest.mark.django_db
def test_revoke_is_idempotent_and_keeps_the_first_time(key_and_secret, clock):
    key, _ = key_and_secret
    key_revoke(key=key)
    first = ApiKey.objects.get(pk=key.pk).revoked_at
    clock.shift(60)
    key_revoke(key=key)
    assert ApiKey.objects.get(pk=key.pk).revoked_at == first
    assert ApiKey.objects.get(pk=key.pk).state == KeyState.REVOKED


@pytest.mark.django_db
def test_rename_changes_only_the_label(key_and_secret):
    key, secret = key_and_secret
    key_rename(key=key, label="renamed")
    assert ApiKey.objects.get(pk=key.pk).label == "renamed"
    assert principal_of(secret).key_id == key.pk


@pytest.mark.django_db
def test_services_never_log_a_secret(account, caplog):
    caplog.set_level("DEBUG")
    key, secret = key_create(account=account, label="logged?")
    _, rotated = key_rotate(key=key)
    key_revoke(key=key)
    assert "svc_sk_live_" not in caplog.text
    assert secret not in caplog.text and rotated not in caplog.text


@pytest.mark.django_db
@pytest.mark.parametrize(
    "spell",
    [
        lambda n: str(n).translate(
            str.maketrans(
                "0123456789", "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669"
            )
        ),
        lambda n: f" {n}",
        lambda n: f"{n}.0",
        lambda n: f"+{n}",
    ],
)
def test_a_key_id_is_ascii_digits_only(spell):
    """Issue 36.3: int() reads Arabic-Indic digits, so rotate_key '١٢' acted on key 12."""
    from keys.selectors import key_get

    key, _ = key_create(account=AccountFactory(), label="k")
    assert key_get(key_id=str(key.pk)) == key
    with pytest.raises(problems.NotFound):
        key_get(key_id=spell(key.pk))
