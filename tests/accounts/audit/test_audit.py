"""The audit log (issue 16.3): every key and plan/market change and every sign-in,
through each path (dashboard, admin, API, commands), with who, when and from where;
never a secret; append-only; retention; the owner's page and the staff admin."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.audit.actors import ActorKind, client_address
from accounts.audit.models import AppendOnly, AuditAction, AuditEntry
from accounts.audit.services import audit_record
from accounts.models import Account
from accounts.services import account_set_tier
from keys.models import ApiKey
from keys.services import key_create, key_revoke
from tests.conftest import T0
from tests.dashboard.conftest import PASSWORD
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SECRET = re.compile(r"svc_sk_live_[0-9A-Za-z]+")
ADDRESS = "203.0.113.7"


def entries(action: AuditAction | None = None) -> list[AuditEntry]:
    qs = AuditEntry.objects.order_by("at", "id")
    return list(qs.filter(action=action) if action else qs)


def only(action: AuditAction) -> AuditEntry:
    (entry,) = entries(action)
    return entry


def assert_no_secret_anywhere(*secrets: str) -> None:
    """No entry holds a key-shaped string, nor any of ``secrets`` in any field."""
    for entry in AuditEntry.objects.all():
        text = json.dumps(
            {f.attname: str(getattr(entry, f.attname)) for f in AuditEntry._meta.fields}
        )
        assert "svc_sk_live_" not in text
        for secret in secrets:
            assert secret not in text and secret[-20:] not in text


@pytest.fixture
def owner(verified: Account) -> Client:
    client = Client(REMOTE_ADDR=ADDRESS)
    client.force_login(verified.owner)
    forget_entries()  # force_login's own sign-in entry
    return client


def forget_entries() -> None:
    AuditEntry.objects.prune_before(timezone.now() + timedelta(days=36500))


def once(client: Client, path: str) -> str:
    return re.search(r'name="once" value="([^"]+)"', client.get(path).content.decode()).group(1)


# --- the dashboard ----------------------------------------------------------------------


def test_dashboard_key_actions_are_recorded_with_owner_and_address(owner, verified, clock):
    page = owner.post("/keys/new/", {"label": "ci", "once": once(owner, "/keys/")})
    (secret,) = set(SECRET.findall(page.content.decode()))
    key = ApiKey.objects.get(account=verified)
    owner.post(f"/keys/{key.pk}/rename/", {"label": "ci runner"})
    token = once(owner, f"/keys/{key.pk}/rotate/")
    rotated = owner.post(f"/keys/{key.pk}/rotate/", {"once": token})
    (new_secret,) = set(SECRET.findall(rotated.content.decode()))
    owner.post(f"/keys/{key.pk}/revoke/")

    actions = [e.action for e in entries()]
    assert actions == [
        AuditAction.KEY_CREATE,
        AuditAction.KEY_RENAME,
        AuditAction.KEY_ROTATE,
        AuditAction.KEY_REVOKE,
    ]
    for entry in entries():
        assert entry.account_id == verified.pk
        assert (entry.actor_kind, entry.actor_id) == (ActorKind.USER, verified.owner.pk)
        assert entry.actor_label == verified.owner.email
        assert entry.address == ADDRESS
        assert entry.at == T0
    assert only(AuditAction.KEY_RENAME).detail == {"from": "ci", "to": "ci runner"}
    assert only(AuditAction.KEY_CREATE).summary == f"Key {key.pk} “ci” created"
    assert_no_secret_anywhere(secret, new_secret)


def test_revoking_twice_records_once_and_renaming_to_the_same_label_records_nothing(
    owner, verified
):
    key, _ = key_create(account=verified, label="same")
    owner.post(f"/keys/{key.pk}/rename/", {"label": "same"})
    owner.post(f"/keys/{key.pk}/revoke/")
    owner.post(f"/keys/{key.pk}/revoke/")
    assert len(entries(AuditAction.KEY_REVOKE)) == 1
    assert entries(AuditAction.KEY_RENAME) == []


def test_dashboard_plan_and_market_changes_are_recorded(owner, verified):
    owner.post("/plan/change/", {"tier": "sous_chef"})
    owner.post("/market/", {"market": "GB"})
    tier = only(AuditAction.TIER_CHANGE)
    assert (tier.detail["from"], tier.detail["to"]) == ("taster", "sous_chef")
    assert tier.summary == "Plan changed from Taster to Sous Chef"
    assert (tier.actor_kind, tier.address) == (ActorKind.USER, ADDRESS)
    market = only(AuditAction.MARKET_CHANGE)
    assert market.detail == {"from": "US", "to": "GB"}
    assert market.summary == "Market changed from US to GB"


def test_choosing_the_same_market_again_records_nothing(owner):
    owner.post("/market/", {"market": "US"})
    assert entries(AuditAction.MARKET_CHANGE) == []


def test_a_refused_change_records_nothing(owner, verified):
    owner.post("/market/", {"market": "ZZ"})
    owner.post("/keys/new/", {"label": "", "once": once(owner, "/keys/")})
    assert entries() == []


# --- the API ------------------------------------------------------------------------------


def test_market_change_through_the_api_names_the_key(verified):
    key, secret = key_create(account=verified, label="api")
    client = APIClient(REMOTE_ADDR=ADDRESS)
    response = client.put(
        "/v1/market", {"market": "GB"}, format="json", headers={"X-API-Key": secret}
    )
    assert response.status_code == 200
    entry = only(AuditAction.MARKET_CHANGE)
    assert (entry.actor_kind, entry.actor_label) == (ActorKind.API_KEY, f"API key {key.pk}")
    assert entry.address == ADDRESS
    assert_no_secret_anywhere(secret)


# --- the admin ----------------------------------------------------------------------------


@pytest.fixture
def staff(admin_user) -> Client:
    client = Client(REMOTE_ADDR="198.51.100.2")
    client.force_login(admin_user)
    forget_entries()
    return client


def test_admin_rename_revoke_and_tier_change_are_recorded_as_staff(staff, admin_user, account):
    key, secret = key_create(account=account, label="old")
    staff.post(f"/admin/keys/apikey/{key.pk}/change/", {"label": "new"})
    staff.post("/admin/keys/apikey/", {"action": "revoke_selected", "_selected_action": [key.pk]})
    staff.post(
        f"/admin/accounts/account/{account.pk}/change/",
        {"tier": "executive_chef", "custom_quota": 42, "custom_window": "day"},
    )
    recorded = entries()[1:]  # after the key's creation (by the system: no actor given)
    assert [e.action for e in recorded] == [
        AuditAction.KEY_RENAME,
        AuditAction.KEY_REVOKE,
        AuditAction.TIER_CHANGE,
    ]
    for entry in recorded:
        assert (entry.actor_kind, entry.actor_id) == (ActorKind.STAFF, admin_user.pk)
        assert entry.address == "198.51.100.2"
        assert entry.account_id == account.pk
    assert only(AuditAction.TIER_CHANGE).detail["quota"] == 42
    assert entries()[0].actor_kind == ActorKind.SYSTEM
    assert_no_secret_anywhere(secret)


def test_changing_only_negotiated_limits_is_recorded(account):
    from accounts.tiers import TierLimits

    account_set_tier(account=account, tier="executive_chef")
    account_set_tier(
        account=account, tier="executive_chef", custom=TierLimits(7, "day", None, None)
    )
    account_set_tier(
        account=account, tier="executive_chef", custom=TierLimits(7, "day", None, None)
    )
    first, limits = entries(AuditAction.TIER_CHANGE)  # the repeat changed nothing
    assert first.summary == "Plan changed from Taster to Executive Chef"
    assert limits.summary == "Executive Chef limits changed: 7 requests per day"


# --- the operator commands ------------------------------------------------------------


def test_commands_are_recorded_as_operator(run_command):
    run_command("create_account", "op@example.com", "--tier", "sous_chef", "--market", "GB")
    account = Account.objects.get(owner__email="op@example.com")
    created = json.loads(run_command("create_key", "op@example.com", "--json"))
    rotated = json.loads(run_command("rotate_key", str(created["id"]), "--json"))
    run_command("revoke_key", str(created["id"]))
    run_command("set_tier", "op@example.com", "head_chef")
    assert [(e.action, e.actor_label) for e in entries()] == [
        (AuditAction.ACCOUNT_CREATE, "manage.py create_account"),
        (AuditAction.TIER_CHANGE, "manage.py create_account"),
        (AuditAction.MARKET_CHANGE, "manage.py create_account"),
        (AuditAction.KEY_CREATE, "manage.py create_key"),
        (AuditAction.KEY_ROTATE, "manage.py rotate_key"),
        (AuditAction.KEY_REVOKE, "manage.py revoke_key"),
        (AuditAction.TIER_CHANGE, "manage.py set_tier"),
    ]
    assert all(e.actor_kind == ActorKind.OPERATOR and e.account_id == account.pk for e in entries())
    assert all(e.address is None for e in entries())
    assert_no_secret_anywhere(created["secret"], rotated["secret"])


def test_setup_demo_is_recorded_as_operator(run_command):
    output = run_command("setup_demo")
    (secret,) = set(SECRET.findall(output))
    assert {e.actor_label for e in entries()} == {"manage.py setup_demo"}
    assert AuditAction.KEY_CREATE in {e.action for e in entries()}
    assert_no_secret_anywhere(secret)


# --- sign-ins ---------------------------------------------------------------------------


def test_dashboard_sign_in_success_and_failure_are_recorded(verified):
    client = Client(REMOTE_ADDR=ADDRESS)
    email = verified.owner.email
    client.post("/login/", {"username": email, "password": "svc_sk_live_not_my_password"})
    client.post("/login/", {"username": "nobody@example.com", "password": "whatever"})
    client.post("/login/", {"username": email, "password": PASSWORD})
    failed, unknown = entries(AuditAction.SIGN_IN_FAILED)
    assert (failed.account_id, failed.actor_kind, failed.actor_label) == (
        verified.pk,
        ActorKind.ANONYMOUS,
        email,
    )
    assert (unknown.account_id, unknown.target) == (None, "nobody@example.com")
    success = only(AuditAction.SIGN_IN)
    assert (success.account_id, success.actor_id) == (verified.pk, verified.owner.pk)
    assert {e.address for e in entries()} == {ADDRESS}
    assert {e.detail["via"] for e in entries()} == {"dashboard"}
    assert_no_secret_anywhere("svc_sk_live_not_my_password", PASSWORD)


def test_sign_ins_refused_by_the_limit_are_not_recorded(verified, settings):
    client = Client(REMOTE_ADDR=ADDRESS)
    email = verified.owner.email
    for _ in range(settings.SIGNIN_MAX_FAILURES + 5):
        client.post("/login/", {"username": email, "password": "wrong"})
    refused = client.post("/login/", {"username": email, "password": PASSWORD})
    assert refused.status_code == 429
    recorded = entries(AuditAction.SIGN_IN_FAILED)
    assert len(recorded) == settings.SIGNIN_MAX_FAILURES  # the real failures only
    assert not entries(AuditAction.SIGN_IN)


def test_admin_sign_in_is_recorded_too(db):
    UserFactory(email="boss@example.com", is_staff=True, is_superuser=True)
    client = Client(REMOTE_ADDR=ADDRESS)
    client.post("/admin/login/", {"username": "boss@example.com", "password": "wrong"})
    client.post("/admin/login/", {"username": "boss@example.com", "password": PASSWORD})
    assert [e.action for e in entries()] == [AuditAction.SIGN_IN_FAILED, AuditAction.SIGN_IN]
    assert {e.detail["via"] for e in entries()} == {"admin"}
    assert {e.account_id for e in entries()} == {None}  # staff without an account


@pytest.mark.parametrize(
    ("hops", "remote", "forwarded", "expected"),
    [
        (0, "10.0.0.1", "203.0.113.9", "10.0.0.1"),  # no proxy trusted: the socket
        (1, "10.0.0.1", "198.51.100.1, 203.0.113.9", "203.0.113.9"),
        (2, "10.0.0.1", "198.51.100.1, 10.0.0.9", "198.51.100.1"),
        (2, "10.0.0.1", "198.51.100.1, 203.0.113.9", "203.0.113.9"),  # an untrusted hop
        (2, "10.0.0.1", "203.0.113.9", "203.0.113.9"),  # fewer hops: what the proxy saw
        (1, "203.0.113.5", "198.51.100.1", "203.0.113.5"),  # not from a trusted proxy
        (1, "10.0.0.1", "not-an-ip", None),
        (0, "", "", None),
    ],
)
def test_client_address(rf, settings, hops, remote, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = hops
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    request = rf.get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)
    assert client_address(request) == expected


# --- never a secret, append-only, retention ------------------------------------------------


def test_a_key_shaped_value_is_redacted_whatever_its_source(account):
    key, secret = key_create(account=account, label=f"oops {SECRET.pattern[:12]}abc")
    ApiKey.objects.filter(pk=key.pk).update(label=f"pasted {secret}")
    key.refresh_from_db()
    key_revoke(key=key)
    audit_record(action=AuditAction.KEY_RENAME, account=account, detail={"to": secret})
    assert_no_secret_anywhere(secret)
    assert "[redacted]" in only(AuditAction.KEY_REVOKE).target


def test_entries_cannot_be_changed_or_deleted(account):
    key_create(account=account, label="k")
    entry = AuditEntry.objects.get()
    entry.actor_label = "someone else"
    with pytest.raises(AppendOnly):
        entry.save()
    with pytest.raises(AppendOnly):
        entry.delete()
    with pytest.raises(AppendOnly):
        AuditEntry.objects.filter(pk=entry.pk).update(actor_label="x")
    with pytest.raises(AppendOnly):
        AuditEntry.objects.all().delete()
    assert AuditEntry.objects.get().actor_label == "system"


def test_prune_audit_deletes_only_entries_older_than_days(run_command, account, clock):
    key, _ = key_create(account=account, label="old")
    clock.shift(timedelta(days=40))
    key_revoke(key=key)
    out = json.loads(run_command("prune_audit", "--older-than", "30", "--json"))
    assert out == {"deleted": 1, "older_than_days": 30}
    assert [e.action for e in entries()] == [AuditAction.KEY_REVOKE]
    assert "Deleted 0 audit entries" in run_command("prune_audit", "--older-than", "30")


@pytest.mark.parametrize("days", ["0", "-3", "soon", "36501"])
def test_prune_audit_refuses_bad_days(run_command, days):
    with pytest.raises(CommandError, match="DAYS must be a whole number"):
        run_command("prune_audit", "--older-than", days)


def test_prune_audit_requires_older_than(run_command):
    with pytest.raises(CommandError, match="older-than"):
        run_command("prune_audit")


# --- the owner's page and the staff admin ------------------------------------------------


def test_owner_sees_their_own_log_and_nobody_elses(owner, verified, other_account):
    key_create(account=verified, label="mine")
    key_create(account=other_account, label="theirs")
    page = owner.get("/activity/")
    body = page.content.decode()
    assert page.status_code == 200
    assert "“mine” created" in body and "theirs" not in body
    assert 'href="/activity/"' in owner.get("/").content.decode()  # in the navigation


def test_the_owners_own_actions_read_you_and_times_one_format(owner, verified):
    # issue 40.6: "By" repeated the e-mail on every row; an entry printed an ISO time
    import re
    from datetime import timedelta

    from django.utils import timezone

    page = owner.get("/keys/").content.decode()
    once = re.search(r'name="once" value="([^"]+)"', page).group(1)
    owner.post("/keys/new/", {"label": "laptop", "once": once})
    expires = (timezone.now() + timedelta(days=30)).replace(second=0, microsecond=0)
    key_create(account=verified, label="by code", expires_at=expires)
    body = owner.get("/activity/").content.decode()
    assert '<td data-label="By" class="activity-by">You</td>' in body
    assert f"expiring {expires.day} {expires:%b %Y, %H:%M} UTC" in body
    assert "T00:00" not in body and f"{expires:%Y-%m-%dT}" not in body


def test_the_log_page_needs_a_signed_in_owner(client):
    response = client.get("/activity/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_log_page_is_paged(owner, verified):
    for n in range(55):
        audit_record(action=AuditAction.SIGN_IN, account=verified, now=T0 + timedelta(seconds=n))
    first = owner.get("/activity/").content.decode()
    assert "Page 1 of 2" in first and first.count("<tr>") == 51  # header + 50
    assert owner.get("/activity/?page=2").content.decode().count("<tr>") == 6
    assert owner.get("/activity/?page=junk").status_code == 200


def test_admin_lists_filters_and_never_edits(staff, account):
    key_create(account=account, label="k")
    account_set_tier(account=account, tier="sous_chef")
    entry = AuditEntry.objects.get(action=AuditAction.KEY_CREATE)
    listing = staff.get("/admin/audit/auditentry/", {"action": "account.tier"}).content.decode()
    assert "Plan changed from Taster to Sous Chef" in listing and "“k” created" not in listing
    assert staff.get("/admin/audit/auditentry/add/").status_code == 403
    assert staff.get(f"/admin/audit/auditentry/{entry.pk}/change/").status_code == 200  # view
    post = staff.post(f"/admin/audit/auditentry/{entry.pk}/change/", {"actor_label": "x"})
    assert post.status_code == 403
    deleted = staff.post(f"/admin/audit/auditentry/{entry.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 403
    assert AuditEntry.objects.get(pk=entry.pk).actor_label == "system"
    assert staff.get("/admin/audit/auditentry/", {"q": account.owner.email}).status_code == 200


def test_entries_survive_their_account_being_deleted(account):
    key_create(account=account, label="k")
    account_id = account.pk
    Account.objects.filter(pk=account_id).delete()
    assert AuditEntry.objects.get().account_id == account_id


def test_service_defaults_record_the_system_as_actor(account):
    key_create(account=account, label="k")
    entry = only(AuditAction.KEY_CREATE)
    assert (entry.actor_kind, entry.actor_label) == (ActorKind.SYSTEM, "system")
    assert entry.address is None
    assert entry.at <= timezone.now()
