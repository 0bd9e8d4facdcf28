"""Dashboard forms for API keys (spec 3.1).

Creating and rotating a key answer with the raw secret in the response to the POST
itself, never through a redirect, a URL, the session or a message. A reload would
re-send that POST, so both forms carry a one-time ``once`` token: a second submission
of the same form is refused (the view then shows the keys page, and the secret is gone)
instead of minting yet another secret.
"""

from __future__ import annotations

import secrets
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django import forms
from django.core.cache import cache
from django.http import HttpRequest
from django.utils import timezone

from core import problems
from keys.policies import AddressListError, parse_allowed_addresses
from keys.services import LABEL_MAX, key_label_clean

ONCE_SESSION_KEY = "keys.once"
ONCE_KEEP = 10  # open forms remembered per session (several tabs)


def issue_once(request: HttpRequest) -> str:
    """A fresh one-time token for a create or rotate form, remembered in the session."""
    token = secrets.token_urlsafe(16)
    request.session[ONCE_SESSION_KEY] = [*request.session.get(ONCE_SESSION_KEY, []), token][
        -ONCE_KEEP:
    ]
    return token


def spend_once(request: HttpRequest, token: str) -> bool:
    """True the first time ``token`` is spent in this session, False ever after.
    ``cache.add`` makes two simultaneous submissions (a double click) spend it once."""
    issued = request.session.get(ONCE_SESSION_KEY, [])
    if token not in issued:
        return False
    # The cache first: while Redis is down it raises (a 503 page), and the token stays
    # in the session, so the same form can be sent again (issue 11.4).
    if not cache.add(f"keys-once:{token}", 1, timeout=3600):
        return False
    request.session[ONCE_SESSION_KEY] = [t for t in issued if t != token]
    return True


class OnceForm(forms.Form):
    """A form that is acted on once. ``clean`` checks that the token was issued; the view
    calls ``spend()`` right before acting, and ``renew()`` before showing errors again.
    ``is_spent`` tells a re-submission (a reload) apart from a mistake."""

    once = forms.CharField(widget=forms.HiddenInput, max_length=64)

    def __init__(self, *args: Any, request: HttpRequest, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.request = request
        self.is_spent = False
        if not self.is_bound:
            self.initial["once"] = issue_once(request)

    def clean_once(self) -> str:
        token = self.cleaned_data["once"]
        if token not in self.request.session.get(ONCE_SESSION_KEY, []):
            self.is_spent = True
            raise forms.ValidationError("This form was already submitted.", code="spent")
        return token

    def spend(self) -> bool:
        """Spend the token; False (and ``is_spent``) when it was spent already."""
        self.is_spent = not spend_once(self.request, self.cleaned_data["once"])
        return not self.is_spent

    def renew(self) -> None:
        """Give a re-displayed form a fresh token (the posted one may be spent)."""
        if self.is_bound:
            self.data = self.data.copy()
            self.data["once"] = issue_once(self.request)


class KeyLabelForm(forms.Form):
    label = forms.CharField(
        label="Label",
        max_length=LABEL_MAX,
        help_text=f"Say where the key is used, e.g. “production server”. Up to {LABEL_MAX} "
        "characters.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # No maxlength in the page: the browser would cut a longer pasted label silently;
        # the server says it is too long instead, keeping what was typed (issue 29).
        self.fields["label"].widget.attrs.pop("maxlength", None)

    def clean_label(self) -> str:
        """The label as the key services store it, refused by the same rules (a bidi
        control character, issue 36.6), before a create's one-time token is spent."""
        try:
            return key_label_clean(self.cleaned_data["label"])
        except problems.ValidationFailed as problem:
            raise forms.ValidationError(problem.extra["errors"][0]["detail"]) from None


# Expiry choices at creation (issue 29.2): never, in 30 or 90 days, or on a date.
EXPIRY_CHOICES = [
    ("never", "Never"),
    ("30", "In 30 days"),
    ("90", "In 90 days"),
    ("date", "On a date"),
]
EXPIRY_MAX_DAYS = 3650


class KeyCreateForm(OnceForm, KeyLabelForm):
    expires = forms.ChoiceField(
        label="Expires",
        choices=EXPIRY_CHOICES,
        initial="never",
        required=False,  # absent: never
        help_text="An expired key is refused like a revoked one. You get an e-mail 7 days "
        "and 1 day before.",
    )
    expires_on = forms.DateField(
        label="Expiry date (UTC)",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="With “On a date”: the key stops working at the start of this day, UTC.",
    )
    field_order = ["label", "expires", "expires_on", "once"]

    def clean(self) -> dict[str, Any]:
        """``expires_at``: None (never) or the moment the key stops working, from
        ``expires`` and ``expires_on``; a date must be tomorrow or later, within 10 years."""
        data = super().clean()
        if "expires" in self.errors:
            return data
        choice = data.get("expires") or "never"
        data["expires_at"] = expiry_at(
            choice, data.get("expires_on"), now=timezone.now(), add_error=self.add_error
        )
        return data


def expiry_at(choice: str, on: date | None, *, now: datetime, add_error: Any) -> datetime | None:
    """The expiry moment ``choice`` (and ``on``) describe at ``now``; an invalid date is
    reported with ``add_error("expires_on", message)`` and gives None."""
    if choice == "never":
        return None
    if choice != "date":
        return now + timedelta(days=int(choice))
    if on is None:
        add_error("expires_on", "Give the date the key stops working.")
        return None
    moment = datetime.combine(on, time(), tzinfo=UTC)
    if moment <= now:
        add_error("expires_on", "Choose a date after today.")
        return None
    if moment > now + timedelta(days=EXPIRY_MAX_DAYS):
        add_error("expires_on", "Choose a date within 10 years.")
        return None
    return moment


class KeyRotateForm(OnceForm):
    pass


class KeyAddressesForm(forms.Form):
    """A key's allowed addresses (issue 29.3), one per line or comma-separated."""

    addresses = forms.CharField(
        label="Allowed addresses",
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 5, "spellcheck": "false", "autocomplete": "off"}),
        help_text="IP addresses or CIDR ranges, IPv4 or IPv6, one per line (e.g. "
        "203.0.113.7 or 198.51.100.0/24), at most 20. Leave empty to allow any address.",
    )

    def clean_addresses(self) -> list[str]:
        try:
            return parse_allowed_addresses(self.cleaned_data["addresses"])
        except AddressListError as error:
            raise forms.ValidationError(str(error)) from None
