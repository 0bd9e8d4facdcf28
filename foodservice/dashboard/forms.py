"""Dashboard forms for accounts: sign-up, sign-in, plan change, market.

Forms validate and translate: the writes are the services' (``account_create``,
``account_set_tier``, ``account_set_market``), whose problems become form errors, so the
dashboard obeys exactly the rules the API and the commands obey.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import password_validation
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm
from django.contrib.auth.hashers import make_password
from django.http import HttpRequest

from accounts.audit.actors import Actor
from accounts.models import Account, User
from accounts.services import account_create, account_set_market, account_set_tier
from accounts.tiers import Tier, TierLimits, tier_limits
from catalogue.selectors import markets_offered
from core import problems

# Tiers a person can switch to themselves. Executive Chef is negotiated (spec 8.1) and
# set by staff in the admin or with the operator commands.
SELF_SERVE_TIERS = (Tier.TASTER, Tier.SOUS_CHEF, Tier.HEAD_CHEF)


def _problem_errors(problem: problems.ValidationFailed) -> dict[str, str]:
    return {e["field"]: e["detail"] for e in problem.extra.get("errors", [])}


class SignUpForm(forms.Form):
    email = forms.EmailField(
        label="E-mail address",
        widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}),
    )
    password1 = forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label="Password again",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean_email(self) -> str:
        return self.cleaned_data["email"].strip().lower()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        p1, p2 = data.get("password1"), data.get("password2")
        if p1 and p2 and p1 != p2:
            self.add_error("password2", "The two passwords differ.")
        elif p1 and data.get("email"):
            try:
                password_validation.validate_password(p1, User(email=data["email"]))
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return data

    def save(self) -> tuple[User, bool]:
        """``(user, created)``: the new user (with a Taster account) and True, or the user
        who already has the address and False (issue 11.3: the caller answers both alike
        and e-mails that owner instead). The password is hashed on both paths, so the
        answer takes about as long either way."""
        email, password = self.cleaned_data["email"], self.cleaned_data["password1"]
        existing = User.objects.filter(email=email).first()
        if existing is None:
            try:
                return account_create(email=email, password=password).owner, True
            except problems.ValidationFailed:  # a concurrent sign-up took the address
                existing = User.objects.filter(email=email).first()
                if existing is None:
                    raise
        make_password(password)  # the work account_create would have done
        return existing, False


class SignInForm(AuthenticationForm):
    """Django's sign-in form with the e-mail as user name. The sign-in limit is the
    authentication backend's (``accounts.backends``), so the admin's form obeys it too."""

    username = forms.EmailField(
        label="E-mail address",
        widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}),
    )
    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": "That e-mail address and password do not match an account.",
    }

    def __init__(self, request: HttpRequest | None = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(request, *args, **kwargs)
        self.fields["password"].widget.attrs["autocomplete"] = "current-password"


class ResetRequestForm(PasswordResetForm):
    """Django's reset request, answered alike for every address (issue 11.3): an address
    with no account that may reset gets an e-mail saying so, instead of nothing, so the
    request takes about as long as for an account.

    An active account without a usable password (made by ``setup_demo`` or
    ``create_account``, which set none) may reset too (issue 24.10): Django's form skips
    such users, so the demo account could never be signed in to. The e-mailed link proves
    the address either way."""

    def get_users(self, email: str) -> Iterator[User]:
        """The active users of ``email`` (case-insensitive), with a password or not."""
        yield from User._default_manager.filter(email__iexact=email, is_active=True)

    def save(self, *args: Any, **kwargs: Any) -> None:
        email = self.cleaned_data["email"]
        if any(True for _ in self.get_users(email)):
            super().save(*args, **kwargs)
            return
        request = kwargs.get("request")
        self.send_mail(
            "registration/password_reset_unknown_subject.txt",
            "registration/password_reset_unknown_email.txt",
            {"email": email, "site": request.build_absolute_uri("/") if request else ""},
            kwargs.get("from_email"),
            email,
        )


class TierChangeForm(forms.Form):
    tier = forms.ChoiceField(choices=[(t.value, t.label) for t in SELF_SERVE_TIERS])

    def __init__(self, *args: Any, account: Account, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.account = account

    def clean_tier(self) -> str:
        tier = self.cleaned_data["tier"]
        if tier == self.account.tier:
            raise forms.ValidationError("The account is already on this plan.")
        return tier

    def save(self, *, actor: Actor | None = None) -> Account:
        return account_set_tier(account=self.account, tier=self.cleaned_data["tier"], actor=actor)

    def refusal(self) -> str:
        """Why the requested change cannot be made, in words for a person (a forced or
        stale ``?tier=`` never shows a raw form error)."""
        asked = str(self.data.get("tier", "")).strip()
        if not asked:
            return "Choose a plan below."
        if asked == Tier.EXECUTIVE_CHEF.value:
            return "Executive Chef is set up with our team: use the contact link on its card."
        if asked == self.account.tier:
            return f"The account is already on {self.account.get_tier_display()}."
        return "That plan cannot be chosen here. Choose one of the plans below."

    def rules(self) -> list[str]:
        """What the change does, shown before the person confirms it."""
        return tier_change_rules(
            old=self.account.limits, new=tier_limits(self.cleaned_data["tier"])
        )


def tier_change_rules(*, old: TierLimits, new: TierLimits) -> list[str]:
    """The consequences of moving from ``old`` to ``new`` limits, in plain words (spec 3.3,
    8.1, 8.2; the billing-period rules of ``account_set_tier`` and docs/metering.md's
    "Changing tier")."""
    rules = ["The change takes effect at once for every key of the account; keys stay the same."]
    if old.window == "month" and new.window == "month":
        if new.quota >= old.quota:
            rules.append("The higher quota applies immediately.")
        else:
            rules.append(
                "The lower quota applies immediately: if this period's usage already exceeds "
                "it, requests are refused until the renewal date."
            )
        rules.append(
            "Your renewal date stays the same, and the requests already used in this "
            "billing period still count."
        )
    elif new.window == "month":
        rules.append(
            "A monthly billing period starts now (counted from the top of this hour) and "
            "renews on the same day each month."
        )
        rules.append("Taster's limits are lifted: listing without search, full depth, all markets.")
    else:
        rules.append(
            f"The quota becomes {new.quota:,} requests in a rolling 24 hours, freed hour by "
            "hour, and the billing period ends. Requests of the last 24 hours count toward "
            "it: if they exceed it, wait until enough hours age out."
        )
        rules.append(
            f"Taster's limits apply again: searches only, about the first "
            f"{settings.TASTER_RESULT_DEPTH:,} results, and "
            "one market (choose it on the Market page)."
        )
    if old.rate != new.rate or old.burst != new.burst:
        rules.append(f"Burst limit: {describe_burst(old)} now; {describe_burst(new)} after.")
    rules.append("No payment provider is connected, so nothing is charged.")
    return rules


def describe_burst(limits: TierLimits) -> str:
    """The burst bucket in words (spec 8.3), e.g. "10 requests/s, bursts of up to 50"."""
    if limits.rate is None:
        return "unthrottled"
    unit = "request" if limits.rate == 1 else "requests"
    return f"{limits.rate:g} {unit}/s, bursts of up to {limits.burst}"


class MarketForm(forms.Form):
    market = forms.ChoiceField(label="Market")

    def __init__(
        self, *args: Any, account: Account, offered: list[tuple[str, str]], **kwargs: Any
    ) -> None:
        """``offered``: ``(code, name)`` pairs, listed as "India (IN)"."""
        super().__init__(*args, **kwargs)
        self.account = account
        unchosen = [] if account.market else [("", "Choose a market…")]
        self.fields["market"].choices = unchosen + [
            (code, f"{name} ({code})" if name and name != code else code) for code, name in offered
        ]
        self.fields["market"].initial = account.market

    def save(self, *, actor: Actor | None = None) -> Account | None:
        """The account with its market set, or None with the service's refusal as a form
        error (the same rules as ``PUT /v1/market``)."""
        try:
            return account_set_market(
                account=self.account,
                market=self.cleaned_data["market"],
                offered=markets_offered(),  # now, not when the page was drawn
                actor=actor,
            )
        except problems.ValidationFailed as problem:
            for message in _problem_errors(problem).values():
                self.add_error("market", message)
            return None
