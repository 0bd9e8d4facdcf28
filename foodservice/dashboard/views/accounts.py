"""Dashboard views for people and their accounts: sign-up, e-mail verification, sign-in,
password reset, the overview, plan and billing, market (issue 5; spec 2.1, 3.2, 3.3, 5.4).

Views stay thin: a form validates, one service writes, a template renders.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts import emails, signin_limit, tokens
from accounts.audit.actors import Actor
from accounts.backends import client_of
from accounts.middleware import refusal_response
from accounts.models import Account, User
from accounts.services import account_for_user, user_password_reset_audit, user_verify_email
from accounts.tiers import Tier, tier_limits
from catalogue.selectors import markets_offered_named
from core import problems
from foodservice.dashboard.forms import (
    SELF_SERVE_TIERS,
    MarketForm,
    ResetRequestForm,
    SignInForm,
    SignUpForm,
    TierChangeForm,
)
from keys.models import ApiKey
from keys.selectors import key_get, key_list
from metering.selectors import usage_summary


def account_of(request: HttpRequest) -> Account:
    """The signed-in person's account (every dashboard page works on it alone), created
    on first need for users that have none (``createsuperuser``)."""
    return account_for_user(user=request.user)


def own_key(request: HttpRequest, key_id: int) -> ApiKey:
    """The signed-in account's key ``key_id``; another account's key is a 404."""
    try:
        return key_get(key_id=key_id, account=account_of(request))
    except problems.NotFound:
        raise Http404("No such key.") from None


# --- Sign-up, verification, sign-in ------------------------------------------------------


@never_cache
@require_http_methods(["GET", "POST"])
def sign_up(request: HttpRequest) -> HttpResponse:
    """Create the account and e-mail the verification link; the person signs in once
    verified (spec 5.4). An address that has an account gets exactly the same answer,
    and its owner an e-mail instead (issue 11.3), so the page never tells who has an
    account. Sign-up requests count against the sign-in limit (they send e-mail)."""
    if request.user.is_authenticated:
        return redirect("dashboard")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        refusal = _limit(request, signin_limit.Kind.SIGN_UP, form.cleaned_data["email"])
        if refusal is not None:
            return refusal
        user, created = form.save()
        if created:
            emails.send_verification_email(request=request, user=user)
        else:
            emails.send_signup_taken_email(request=request, user=user)
        return redirect("signup-sent")
    return render(request, "registration/signup.html", {"form": form})


def sign_up_sent(request: HttpRequest) -> HttpResponse:
    return render(request, "registration/signup_sent.html")


def _limit(request: HttpRequest, kind: signin_limit.Kind, email: str) -> HttpResponse | None:
    """The 429 page when the sign-in limit refuses this request, else None (counted)."""
    outcome = signin_limit.attempt_begin(
        kind=kind, email=email, client=client_of(request), now=timezone.now()
    )
    if isinstance(outcome, signin_limit.Refusal):
        return refusal_response(request, outcome)
    return None


@never_cache
def verify_email(request: HttpRequest, token: str) -> HttpResponse:
    """Open the link from the e-mail: marks the address verified (idempotent)."""
    claim = tokens.read_token(token)
    user = User.objects.filter(pk=claim.user_id).first() if claim else None
    if user is None or claim is None or user.email != claim.email:
        return render(request, "registration/verify_failed.html", status=400)
    user_verify_email(user=user, actor=Actor.for_user(user, request))
    messages.success(request, f"{user.email} is verified. You can now create API keys.")
    if request.user.is_authenticated and request.user.pk == user.pk:
        return redirect("keys:list")
    return redirect("login")


@login_required
@require_POST
def resend_verification(request: HttpRequest) -> HttpResponse:
    user = request.user
    if user.email_verified_at is not None:
        messages.info(request, "Your e-mail address is already verified.")
    elif emails.resend_verification_email(request=request, user=user):
        messages.success(request, f"We sent a new verification link to {user.email}.")
    else:
        messages.warning(request, "A link was sent less than a minute ago; check your inbox.")
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = "dashboard"
    return redirect(target)


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset request behind the sign-in limit, answering every address alike
    (``ResetRequestForm``)."""

    form_class = ResetRequestForm
    template_name = "registration/password_reset_form.html"
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"
    success_url = reverse_lazy("password_reset_done")

    def form_valid(self, form):  # type: ignore[no-untyped-def]
        refusal = _limit(self.request, signin_limit.Kind.RESET, form.cleaned_data["email"])
        return refusal or super().form_valid(form)


class SignInView(auth_views.LoginView):
    form_class = SignInForm
    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def form_invalid(self, form):  # type: ignore[no-untyped-def]
        # The address stays filled in and the password is cleared: put the cursor
        # where the person types next (issue 15.5).
        form.fields["username"].widget.attrs.pop("autofocus", None)
        form.fields["password"].widget.attrs["autofocus"] = True
        return super().form_invalid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's reset confirmation; following the e-mailed link also proves the address,
    so a successful reset verifies it."""

    template_name = "registration/password_reset_confirm.html"
    success_url = reverse_lazy("password_reset_complete")

    def form_valid(self, form):  # type: ignore[no-untyped-def]
        actor = Actor.for_user(form.user, self.request)
        user_verify_email(user=form.user, actor=actor)
        response = super().form_valid(form)
        user_password_reset_audit(user=form.user, actor=actor)  # issue 29: in Activity
        return response


# --- Overview, plan, market ----------------------------------------------------------------


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    account = account_of(request)
    keys = list(key_list(account=account))
    context = {
        "account": account,
        "limits": account.limits,
        "usage": usage_summary(account=account),
        "active_keys": sum(1 for k in keys if k.state == "active"),
        "key_count": len(keys),
        "max_keys": settings.MAX_KEYS_PER_ACCOUNT,
        "key_used": any(k.last_used_at for k in keys),
        "market_name": market_label(account.market),
    }
    # Once every step is done the checklist gives way to the snippet alone (issue 29).
    context["started"] = bool(
        request.user.email_verified_at
        and account.market
        and context["key_count"]
        and context["key_used"]
    )
    return render(request, "accounts/dashboard.html", context)


def market_label(code: str | None) -> str:
    """A market as people read it, "United States (US)"; "" when none is chosen."""
    if not code:
        return ""
    name = dict(markets_offered_named()).get(code, "")
    return f"{name} ({code})" if name and name != code else code


@login_required
def plan(request: HttpRequest) -> HttpResponse:
    account = account_of(request)
    tiers = [
        {
            "value": t.value,
            "label": t.label,
            "limits": tier_limits(t),
            "current": t == account.tier,
            "price": settings.PLAN_PRICES.get(t.value, ""),
        }
        for t in (*SELF_SERVE_TIERS, Tier.EXECUTIVE_CHEF)
    ]
    context = {
        "account": account,
        "limits": account.limits,
        "usage": usage_summary(account=account),
        "tiers": tiers,
        "self_serve": {t.value for t in SELF_SERVE_TIERS},
        "market_name": market_label(account.market),
        "sales_url": settings.SALES_CONTACT_URL,
    }
    return render(request, "accounts/plan.html", context)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def plan_change(request: HttpRequest) -> HttpResponse:
    """GET ``?tier=...``: the rules of the change (spec 3.3) before confirming.
    POST: change the tier through ``account_set_tier``, effective at once for every key."""
    account = account_of(request)
    form = TierChangeForm(request.POST or request.GET or None, account=account)
    if not form.is_valid():
        messages.error(request, form.refusal())
        return redirect("plan")
    if request.method == "POST":
        account = form.save(actor=Actor.for_request(request))
        messages.success(
            request,
            f"You are now on {account.get_tier_display()}. The new limits apply to every key "
            "from the next request.",
        )
        return redirect("plan")
    context = {
        "account": account,
        "old_limits": account.limits,
        "new_tier": Tier(form.cleaned_data["tier"]),
        "new_limits": tier_limits(form.cleaned_data["tier"]),
        "old_price": settings.PLAN_PRICES.get(account.tier, ""),
        "new_price": settings.PLAN_PRICES.get(form.cleaned_data["tier"], ""),
        "rules": form.rules(),
        "usage": usage_summary(account=account),
    }
    return render(request, "accounts/plan_change.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def market(request: HttpRequest) -> HttpResponse:
    """Choose the account's market (spec 3.2): the same service as ``PUT /v1/market``."""
    account = account_of(request)
    offered = markets_offered_named()
    form = MarketForm(request.POST or None, account=account, offered=offered)
    actor = Actor.for_request(request)
    if request.method == "POST" and form.is_valid() and form.save(actor=actor) is not None:
        messages.success(request, f"Your market is now {market_label(account.market)}.")
        return redirect("market")
    names = dict(offered)
    context = {"account": account, "form": form, "market_name": names.get(account.market, "")}
    return render(request, "accounts/market.html", context)
