"""Staff admin for users and accounts.

Every change that alters what a key may do goes through the account services, so the
shared key cache is invalidated exactly as when the dashboard or ``set_tier`` does it:
the tier and Executive Chef's limits are saved by ``account_set_tier``. Accounts are
created by sign-up or ``create_account``, never here; the market is the customer's choice.
Accounts and keys are never deleted here (a deleted key could stay in the shared key
cache, and its usage history would go), so neither is a user who owns an account: the
admin refuses the cascade. To cut a customer off, untick the owner's "Active": every key
of the account answers 401 from the next request (``keys.signals``); ticking it again
restores them. Revoking keys is for good.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.http import HttpRequest
from django.utils import timezone

from accounts.audit.actors import Actor, ActorKind
from accounts.models import Account, User
from accounts.services import account_set_tier
from accounts.tiers import Tier, TierLimits
from core.calendar import billing_period
from core.cli import iso


class UserCreationForm(AdminUserCreationForm):
    class Meta(AdminUserCreationForm.Meta):
        model = User
        fields = ("email",)
        field_classes: dict[str, Any] = {}

    def clean_email(self) -> str:
        return User.objects.normalize_email(self.cleaned_data["email"]).strip().lower()


class UserEditForm(UserChangeForm):
    class Meta(UserChangeForm.Meta):
        model = User
        fields = "__all__"
        field_classes: dict[str, Any] = {}


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Django's user admin without a username: users sign in by e-mail."""

    form = UserEditForm
    add_form = UserCreationForm
    fieldsets = (
        (None, {"fields": ("email", "password", "email_verified_at")}),
        ("Personal info", {"fields": ("first_name", "last_name")}),
        (
            "Permissions",
            {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")},
        ),
        ("Important dates", {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = (
        (
            None,
            {
                "classes": ("wide",),
                "fields": ("email", "usable_password", "password1", "password2"),
            },
        ),
    )
    list_display = ("email", "is_staff", "is_active", "email_verified_at", "date_joined")
    list_filter = ("is_staff", "is_superuser", "is_active")
    search_fields = ("email", "first_name", "last_name")
    ordering = ("email",)


CUSTOM_HELP = (
    "Blank custom quota: the tier table's limits (leave every custom field blank). "
    "A custom quota (Executive Chef only): negotiated limits; a blank window is month, "
    "blank rate and burst are unthrottled."
)


class AccountForm(forms.ModelForm):
    """The tier and Executive Chef's negotiated limits (``CUSTOM_HELP``), checked by
    ``TierLimits``; ``self.custom`` is what ``account_set_tier`` receives."""

    class Meta:
        model = Account
        fields = ("tier", "custom_quota", "custom_window", "custom_rate", "custom_burst")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        self.custom: TierLimits | None = None
        custom = {f: data.get(f"custom_{f}") for f in ("quota", "window", "rate", "burst")}
        if custom["quota"] is None:
            if any(v not in (None, "") for v in custom.values()):
                raise forms.ValidationError("Set a custom quota with the other custom limits.")
            return data
        if data.get("tier") != Tier.EXECUTIVE_CHEF:
            raise forms.ValidationError("Custom limits are for Executive Chef only.")
        try:
            self.custom = TierLimits(**{**custom, "window": custom["window"] or "month"})
        except ValueError as exc:
            raise forms.ValidationError(f"Invalid custom limits: {exc}.") from None
        return data


@admin.register(Account)
class AccountAdmin(admin.ModelAdmin):
    form = AccountForm
    list_display = ("owner_email", "tier", "market", "billing_anchor", "renewal", "created_at")
    list_filter = ("tier", "market")
    list_select_related = ("owner",)
    search_fields = ("owner__email",)
    ordering = ("owner__email",)
    readonly_fields = ("owner", "market", "billing_anchor", "renewal", "created_at", "updated_at")
    fieldsets = (
        (None, {"fields": ("owner", "tier", "market")}),
        ("Billing", {"fields": ("billing_anchor", "renewal")}),
        (
            "Executive Chef limits",
            {
                "fields": ("custom_quota", "custom_window", "custom_rate", "custom_burst"),
                "description": CUSTOM_HELP,
            },
        ),
        ("Dates", {"fields": ("created_at", "updated_at")}),
    )

    @admin.display(description="owner", ordering="owner__email")
    def owner_email(self, account: Account) -> str:
        return account.owner.email

    @admin.display(description="next renewal (UTC)")
    def renewal(self, account: Account) -> str:
        if account.billing_anchor is None or account.limits.window != "month":
            return "-"
        return iso(billing_period(account.billing_anchor, timezone.now())[1]) or "-"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Account | None = None) -> bool:
        return False

    def save_model(
        self, request: HttpRequest, obj: Account, form: AccountForm, change: bool
    ) -> None:
        # Only the tier and the custom limits are editable, and only the service saves
        # them: it sets the billing anchor and invalidates the account's cached keys.
        if form.changed_data:
            staff = Actor.for_request(request, kind=ActorKind.STAFF)
            account_set_tier(account=obj, tier=obj.tier, custom=form.custom, actor=staff)
