"""Dashboard forms for API keys (spec 3.1).

Creating and rotating a key answer with the raw secret in the response to the POST
itself, never through a redirect, a URL, the session or a message. A reload would
re-send that POST, so both forms carry a one-time ``once`` token: a second submission
of the same form is refused (the view then shows the keys page, and the secret is gone)
instead of minting yet another secret.
"""

from __future__ import annotations

import secrets
from typing import Any

from django import forms
from django.core.cache import cache
from django.http import HttpRequest

from keys.services import LABEL_MAX

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
        help_text="Say where the key is used, e.g. “production server”.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )


class KeyCreateForm(OnceForm, KeyLabelForm):
    field_order = ["label", "once"]


class KeyRotateForm(OnceForm):
    pass
