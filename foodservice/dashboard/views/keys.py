"""The keys page: list, create, rotate, revoke, rename (spec 2.3, 3.1).

Every key is looked up through ``key_get(account=...)``, so another account's key id
in any URL is a 404. The raw secret exists only in the response to the create or
rotate POST (``keys/secret.html``, never cached); nothing else ever holds it.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.audit.actors import Actor, client_address
from accounts.models import Account
from core import problems
from foodservice.dashboard.key_forms import (
    KeyAddressesForm,
    KeyCreateForm,
    KeyLabelForm,
    KeyRotateForm,
)
from foodservice.dashboard.views.accounts import account_of, own_key
from keys import selectors as key_selectors
from keys.models import ApiKey, KeyState
from keys.services import (
    key_create,
    key_rename,
    key_revoke,
    key_rotate,
    key_set_allowed_addresses,
)
from metering.selectors import key_usage_in_window

UNVERIFIED = "Verify your e-mail address before creating keys: open the link we sent you."
# Said once, before the click (the Create button is disabled at the limit), and again in
# the same words if a create is forced anyway (issue 15.4).
LIMIT = (
    "The account holds {active} of {max} keys, the most it may hold. To free a slot, "
    "revoke a key you no longer use (its history stays listed); or rotate a key to give "
    "it a new secret without using a slot."
)
SPENT = (
    "That form was already used. For your safety a secret is shown only once: "
    "rotate the key to get a new one."
)


def _list_page(
    request: HttpRequest, account: Account, form: KeyCreateForm | None = None, status: int = 200
) -> HttpResponse:
    now = timezone.now()
    keys = list(key_selectors.key_list(account=account))
    counts = key_usage_in_window(account=account, now=now)
    rows = [{"key": k, "state": k.state_at(now), "requests": counts.get(k.pk)} for k in keys]
    active = key_selectors.key_count_active(account=account, now=now)
    context = {
        "account": account,
        "rows": rows,
        "form": form or KeyCreateForm(request=request),
        "verified": request.user.email_verified_at is not None,
        "active": active,
        "max_keys": settings.MAX_KEYS_PER_ACCOUNT,
        "at_limit": active >= settings.MAX_KEYS_PER_ACCOUNT,
        "limit_message": LIMIT.format(active=active, max=settings.MAX_KEYS_PER_ACCOUNT),
    }
    return render(request, "keys/list.html", context, status=status)


def _secret_page(request: HttpRequest, key: ApiKey, secret: str, *, rotated: bool) -> HttpResponse:
    """The one and only rendering of ``secret``: the body of this POST response."""
    context = {"key": key, "secret": secret, "rotated": rotated}
    return render(request, "keys/secret.html", context)


@login_required
@require_GET
def key_list(request: HttpRequest) -> HttpResponse:
    return _list_page(request, account_of(request))


@never_cache
@login_required
@require_POST
def create(request: HttpRequest) -> HttpResponse:
    account = account_of(request)
    form = KeyCreateForm(request.POST, request=request)
    if request.user.email_verified_at is None:  # the page explains why (UNVERIFIED)
        return _list_page(request, account, status=403)
    if form.is_valid() and form.spend():
        try:
            key, secret = key_create(
                account=account,
                label=form.cleaned_data["label"],
                expires_at=form.cleaned_data["expires_at"],
                actor=Actor.for_request(request),
            )
        except problems.KeyLimitReached:
            form.renew()  # the page's own limit message says why, in one place
            return _list_page(request, account, form, status=409)
        except problems.ValidationFailed as problem:
            form.add_error("label", str(problem.detail).removeprefix("label: "))
        else:
            return _secret_page(request, key, secret, rotated=False)
    if form.is_spent:
        messages.warning(request, SPENT)
        return redirect("keys:list")
    form.renew()
    return _list_page(request, account, form)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def rotate(request: HttpRequest, key_id: int) -> HttpResponse:
    """GET: confirm. POST: a fresh secret, shown once; the old one stops working now."""
    key = own_key(request, key_id)
    if key.state != KeyState.ACTIVE:
        messages.error(
            request, f"“{key.label}” is {key.state.label.lower()}: only active keys rotate."
        )
        return redirect("keys:list")
    if request.user.email_verified_at is None:
        messages.error(request, UNVERIFIED)
        return redirect("keys:list")
    if request.method == "GET":
        form = KeyRotateForm(request=request)
        return render(request, "keys/rotate.html", {"key": key, "form": form})
    form = KeyRotateForm(request.POST, request=request)
    if form.is_valid() and form.spend():
        try:
            key, secret = key_rotate(key=key, actor=Actor.for_request(request))
        except problems.KeyNotActive as problem:
            messages.error(request, str(problem.detail))
            return redirect("keys:list")
        return _secret_page(request, key, secret, rotated=True)
    messages.warning(request, SPENT)
    return redirect("keys:list")


@login_required
@require_http_methods(["GET", "POST"])
def revoke(request: HttpRequest, key_id: int) -> HttpResponse:
    """GET: confirm. POST: revoke; the key stops authenticating on the next request."""
    key = own_key(request, key_id)
    if request.method == "GET":
        return render(request, "keys/revoke.html", {"key": key})
    key_revoke(key=key, actor=Actor.for_request(request))
    messages.success(request, f"“{key.label}” is revoked: it no longer authenticates.")
    return redirect("keys:list")


@login_required
@require_http_methods(["GET", "POST"])
def rename(request: HttpRequest, key_id: int) -> HttpResponse:
    key = own_key(request, key_id)
    form = KeyLabelForm(request.POST or None, initial={"label": key.label})
    if request.method == "POST" and form.is_valid():
        try:
            key_rename(key=key, label=form.cleaned_data["label"], actor=Actor.for_request(request))
        except problems.ValidationFailed as problem:
            form.add_error("label", str(problem.detail).removeprefix("label: "))
        else:
            messages.success(request, f"The key is now called “{key.label}”.")
            return redirect("keys:list")
    return render(request, "keys/rename.html", {"key": key, "form": form})


@login_required
@require_http_methods(["GET", "POST"])
def addresses(request: HttpRequest, key_id: int) -> HttpResponse:
    """Edit the addresses ``key`` may be used from (issue 29.3); a request from anywhere
    else is refused with the opaque 401, as an unknown key is."""
    key = own_key(request, key_id)
    if key.revoked_at is not None:  # issue 40.8: a revoked key works from nowhere
        messages.error(request, f"“{key.label}” is revoked: it works from no address.")
        return redirect("keys:list")
    initial = {"addresses": "\n".join(key.allowed_addresses or [])}
    form = KeyAddressesForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        allowed = form.cleaned_data["addresses"]
        key_set_allowed_addresses(key=key, addresses=allowed, actor=Actor.for_request(request))
        if allowed:
            messages.success(
                request, f"“{key.label}” now works only from {len(allowed)} address(es)."
            )
        else:
            messages.success(request, f"“{key.label}” works from any address.")
        return redirect("keys:list")
    context = {"key": key, "form": form, "your_address": client_address(request)}
    return render(request, "keys/addresses.html", context)
