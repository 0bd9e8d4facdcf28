"""The key commands: create_key, rotate_key, revoke_key, list_keys (a contract)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from keys.models import ApiKey
from keys.services import key_create, key_revoke
from tests.conftest import T0
from tests.factories import AccountFactory, ApiKeyFactory
from tests.support.forked_manage import ForkedManage

pytestmark = pytest.mark.django_db

ROOT = Path(settings.BASE_DIR)


def status_with(client: APIClient, secret: str) -> int:
    return client.get("/v1/market", headers={"X-API-Key": secret}).status_code


def as_json(output: str) -> dict:
    """The output parsed as one JSON object; fails on anything around it."""
    payload = json.loads(output)
    assert isinstance(payload, dict)
    return payload


# --- create_key --------------------------------------------------------------------


def test_create_key_prints_a_secret_that_authenticates(run_command, account, api_client):
    payload = as_json(run_command("create_key", account.owner.email, "--label", "ci", "--json"))
    assert set(payload) == {"id", "label", "secret"}
    assert payload["label"] == "ci"
    assert ApiKey.objects.get(pk=payload["id"]).account == account
    assert status_with(api_client, payload["secret"]) == 200


def test_create_key_human_output_shows_the_secret_and_default_label(run_command, account):
    output = run_command("create_key", account.owner.email.upper())
    key = ApiKey.objects.get(account=account)
    assert key.label == "default"
    assert f'Created key {key.pk} "default"' in output
    assert "svc_sk_live_" in output


def test_create_key_for_an_unknown_email_fails(run_command, db):
    with pytest.raises(CommandError, match=re.escape("e-mail 'nobody@example.com'")):
        run_command("create_key", "nobody@example.com")


def test_a_sixth_key_is_refused(run_command, account):
    ApiKeyFactory.create_batch(5, account=account)
    with pytest.raises(CommandError, match="at most 5 keys"):
        run_command("create_key", account.owner.email)
    assert account.keys.count() == 5


def test_create_key_with_a_blank_label_fails(run_command, account):
    with pytest.raises(CommandError, match="label: A label is required"):
        run_command("create_key", account.owner.email, "--label", "  ")


def test_create_key_with_an_expiry_stops_authenticating_once_expired(
    run_command, account, api_client, clock
):
    payload = as_json(run_command("create_key", account.owner.email, "--expires-in", "2", "--json"))
    assert ApiKey.objects.get(pk=payload["id"]).expires_at == T0 + dt.timedelta(days=2)
    assert status_with(api_client, payload["secret"]) == 200
    clock.shift(dt.timedelta(days=2))
    assert status_with(api_client, payload["secret"]) == 401
    assert ApiKey.objects.get(pk=payload["id"]).state == "expired"


@pytest.mark.parametrize("days", ["0", "-1", "3651", "soon"])
def test_create_key_refuses_a_bad_expiry(run_command, account, days):
    with pytest.raises(CommandError, match="DAYS must be a whole number from 1 to 3650"):
        run_command("create_key", account.owner.email, "--expires-in", days)
    assert not account.keys.exists()


# --- rotate_key --------------------------------------------------------------------


def test_rotate_key_prints_a_new_secret_and_the_old_one_fails(
    run_command, key_and_secret, api_client
):
    key, old = key_and_secret
    assert status_with(api_client, old) == 200  # cached on Redis
    payload = as_json(run_command("rotate_key", str(key.pk), "--json"))
    assert payload == {"id": key.pk, "label": "test key", "secret": payload["secret"]}
    assert payload["secret"] != old
    assert status_with(api_client, old) == 401
    assert status_with(api_client, payload["secret"]) == 200


def test_rotate_key_human_output_shows_the_new_secret(run_command, key_and_secret):
    key, old = key_and_secret
    output = run_command("rotate_key", str(key.pk))
    assert f'Rotated key {key.pk} "test key"' in output
    assert "svc_sk_live_" in output
    assert old not in output


def test_rotating_a_revoked_key_fails(run_command, key_and_secret):
    key, _ = key_and_secret
    key_revoke(key=key)
    with pytest.raises(CommandError, match="Only an active key can be rotated"):
        run_command("rotate_key", str(key.pk))


@pytest.mark.parametrize("key_id", ["999999", "abc", "1.5"])
def test_rotating_an_unknown_or_malformed_key_id_fails(run_command, key_id):
    with pytest.raises(CommandError, match=re.escape(f"No key with id '{key_id}'")):
        run_command("rotate_key", key_id)


# --- revoke_key --------------------------------------------------------------------


def test_revoke_key_makes_the_secret_fail(run_command, key_and_secret, api_client):
    key, secret = key_and_secret
    assert status_with(api_client, secret) == 200
    payload = as_json(run_command("revoke_key", str(key.pk), "--json"))
    assert payload == {"id": key.pk, "state": "revoked"}
    assert status_with(api_client, secret) == 401


def test_revoke_key_human_output_and_idempotence(run_command, key_and_secret):
    key, _ = key_and_secret
    run_command("revoke_key", str(key.pk))
    assert run_command("revoke_key", str(key.pk)).strip() == f'Key {key.pk} "test key" is revoked.'


@pytest.mark.parametrize("key_id", ["999999", "x1"])
def test_revoking_an_unknown_or_malformed_key_id_fails(run_command, key_id):
    with pytest.raises(CommandError, match="No key with id"):
        run_command("revoke_key", key_id)


# --- list_keys ---------------------------------------------------------------------


def test_list_keys_gives_every_key_with_its_state_and_never_a_secret(run_command, account, clock):
    active, secret = key_create(account=account, label="live")
    revoked, _ = key_create(account=account, label="old")
    key_revoke(key=revoked)
    expired = ApiKeyFactory(account=account, label="gone", expires_at="2026-01-01T00:00Z")
    ApiKey.objects.filter(pk=active.pk).update(last_used_at="2026-03-10T14:00:00Z")
    ApiKeyFactory(account=AccountFactory(), label="someone else's")

    output = run_command("list_keys", account.owner.email, "--json")
    payload = as_json(output)
    assert payload == {
        "keys": [
            {
                "id": active.pk,
                "label": "live",
                "state": "active",
                "created": "2026-03-10T14:25:00Z",
                "last_used": "2026-03-10T14:00:00Z",
            },
            {
                "id": revoked.pk,
                "label": "old",
                "state": "revoked",
                "created": "2026-03-10T14:25:00Z",
                "last_used": None,
            },
            {
                "id": expired.pk,
                "label": "gone",
                "state": "expired",
                "created": "2026-03-10T14:25:00Z",
                "last_used": None,
            },
        ]
    }
    assert secret not in output
    assert active.secret_hash not in output


def test_list_keys_human_output_is_a_table(run_command, key_and_secret):
    key, secret = key_and_secret
    output = run_command("list_keys", key.account.owner.email)
    header, row = output.strip().splitlines()
    assert header.split()[:2] == ["ID", "STATE"]
    assert row.split()[:2] == [str(key.pk), "active"]
    assert row.endswith("test key")
    assert "never" in row
    assert secret not in output


def test_list_keys_of_an_account_without_keys(run_command, account):
    output = run_command("list_keys", account.owner.email)
    assert output.strip() == f"{account.owner.email} has no keys."
    assert as_json(run_command("list_keys", account.owner.email, "--json")) == {"keys": []}


def test_list_keys_for_an_unknown_email_fails(run_command, db):
    with pytest.raises(CommandError, match="No account with e-mail"):
        run_command("list_keys", "nobody@example.com")


def test_a_missing_argument_is_a_usage_error(run_command, db):
    with pytest.raises(CommandError, match="required: key_id"):
        run_command("revoke_key")


# --- as real processes: exit codes, stdout and stderr ------------------------------


@pytest.fixture(scope="module")
def manage(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForkedManage]:
    """Run ``manage.py`` commands as processes of their own (each forked from one that
    imported the project once: tests/support/forked_manage.py) on a fresh embedded
    database of their own."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["FOODSERVICE_VAR_DIR"] = str(tmp_path_factory.mktemp("var"))
    manage = ForkedManage(cwd=ROOT, env=env)
    try:
        assert manage("migrate", "--noinput", "-v0").returncode == 0
        assert manage("create_account", "ops@example.com").returncode == 0
        yield manage
    finally:
        manage.close()


@pytest.mark.backend_free
def test_json_output_is_exactly_one_object_on_stdout(manage):
    created = manage("create_account", "proc@example.com", "--market", "US", "--json")
    assert created.returncode == 0, created.stderr
    assert as_json(created.stdout)["market"] == "US"
    key = manage("create_key", "proc@example.com", "--json")
    assert key.returncode == 0, key.stderr
    assert as_json(key.stdout)["secret"].startswith("svc_sk_live_")
    assert "svc_sk_live_" not in key.stderr  # logs name the key id, never the secret


@pytest.mark.backend_free
@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["create_key", "nobody@example.com"], 1, "No account with e-mail"),
        (["rotate_key", "abc", "--json"], 1, "No key with id 'abc'"),
        (["set_tier", "ops@example.com", "gold"], 1, "Unknown tier 'gold'"),
        (["create_account", "ops@example.com"], 1, "already exists"),
        (["revoke_key"], 2, "error: the following arguments are required: key_id"),
        (["set_tier", "a@example.com", "x", "--window", "year"], 2, "error: argument --window"),
    ],
)
def test_failures_exit_non_zero_with_one_line_on_stderr(manage, args, code, message):
    result = manage(*args)
    assert result.returncode == code
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert message in result.stderr
