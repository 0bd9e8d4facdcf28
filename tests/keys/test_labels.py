"""A key's label is refused with a control or bidi control character, by one rule
(``keys.services.key_label_clean``) on every path: the services, the admin, the
commands (issue 36.6). The dashboard's form: tests/dashboard/test_key_labels.py."""

from __future__ import annotations

import pytest
from django.core.management.base import CommandError

from core import problems
from keys.models import ApiKey
from keys.services import key_create, key_label_clean, key_rename

pytestmark = pytest.mark.django_db

KEYS = "/admin/keys/apikey/"

# U+202E (right-to-left override): shown as "exe.png"; U+0085 (NEL), which str.split()
# takes for a space; the other Bidi_Control characters; C0 and C1 controls.
REFUSED = [
    ("\u202egnp.exe", "U+202E"),
    ("ci\u0085server", "U+0085"),
    ("\u202aprod", "U+202A"),
    ("prod\u202c", "U+202C"),
    ("\u202dprod", "U+202D"),
    ("\u2066prod\u2069", "U+2066"),
    ("\u2067prod", "U+2067"),
    ("\u2068prod", "U+2068"),
    ("prod\u2069", "U+2069"),
    ("prod\u200e", "U+200E"),
    ("prod\u200f", "U+200F"),
    ("prod\u061c", "U+061C"),
    ("prod\x00", "U+0000"),
    ("prod\x1b[31m", "U+001B"),
    ("prod\x7f", "U+007F"),
    ("prod\x9b", "U+009B"),
]


@pytest.mark.parametrize(("label", "named"), REFUSED)
def test_the_rule_refuses_control_and_bidi_characters_naming_the_first(label, named):
    with pytest.raises(problems.ValidationFailed) as refused:
        key_label_clean(label)
    assert refused.value.extra["errors"] == [
        {
            "field": "label",
            "detail": f"Must not hold control or bidi control characters ({named}).",
        }
    ]


@pytest.mark.parametrize(
    ("label", "stored"),
    [
        ("  my\tphone\napp\r\n", "my phone app"),  # tab and new lines fold like spaces
        ("קופה ראשית", "קופה ראשית"),  # right-to-left text itself is fine
        ("café crème", "café crème"),
    ],
)
def test_the_rule_keeps_plain_text_and_folds_white_space(label, stored):
    assert key_label_clean(label) == stored


def test_create_and_rename_refuse_a_bidi_override_and_store_nothing(account):
    with pytest.raises(problems.ValidationFailed, match=r"U\+202E"):
        key_create(account=account, label="\u202egnp.exe")
    assert not ApiKey.objects.exists()
    key, _ = key_create(account=account, label="server")
    with pytest.raises(problems.ValidationFailed, match=r"U\+0085"):
        key_rename(key=key, label="ci\u0085server")
    key.refresh_from_db()
    assert key.label == "server"


def test_create_key_command_refuses_the_label(run_command, account):
    with pytest.raises(CommandError, match=r"label: Must not hold .* \(U\+202E\)"):
        run_command("create_key", account.owner.email, "--label", "\u202egnp.exe")
    assert not ApiKey.objects.exists()


def test_the_admin_refuses_a_bidi_label_on_its_form(admin_client, key_and_secret):
    key, _ = key_and_secret
    response = admin_client.post(f"{KEYS}{key.pk}/change/", {"label": "\u202egnp.exe"})
    assert response.status_code == 200  # the form again, with the error
    assert "Must not hold control or bidi control characters (U+202E)." in (
        response.content.decode()
    )
    key.refresh_from_db()
    assert key.label == "test key"
