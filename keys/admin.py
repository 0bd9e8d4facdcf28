"""Staff admin for API keys: look, rename, revoke. Never a hash or a secret.

Keys are created and rotated in the dashboard or by command (the secret must be shown
once to its owner), so there is no "add" here; nor "delete" (it would drop usage
history; revoke instead). Revoking and renaming call the key services, so the shared key
cache is invalidated as everywhere else.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Q, QuerySet
from django.forms import ModelForm, ValidationError
from django.http import HttpRequest
from django.utils import timezone

from accounts.audit.actors import Actor, ActorKind
from core import problems
from keys.models import ApiKey, KeyState
from keys.services import key_label_clean, key_rename, key_revoke


class StateFilter(admin.SimpleListFilter):
    """Filter by state, which is derived from ``revoked_at`` and ``expires_at``."""

    title = "state"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return list(KeyState.choices)

    def queryset(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> QuerySet[ApiKey]:
        now = timezone.now()
        expired = Q(revoked_at__isnull=True, expires_at__lte=now)
        match self.value():
            case KeyState.ACTIVE:
                return queryset.active(now)  # type: ignore[attr-defined]
            case KeyState.REVOKED:
                return queryset.filter(revoked_at__isnull=False)
            case KeyState.EXPIRED:
                return queryset.filter(expired)
        return queryset


class ApiKeyForm(ModelForm):
    def clean_label(self) -> str:
        """Refused by the key services' own rule (issue 36.6), as a form error."""
        try:
            return key_label_clean(self.cleaned_data["label"])
        except problems.ValidationFailed as problem:
            raise ValidationError(problem.extra["errors"][0]["detail"]) from None


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    form = ApiKeyForm
    # An explicit allow-list: secret_hash is never a field, column, filter or search.
    fields = (
        "account",
        "label",
        "state",
        "hint",
        "created_at",
        "rotated_at",
        "revoked_at",
        "expires_at",
        "last_used_at",
        "allowed_addresses",
    )
    readonly_fields = tuple(f for f in fields if f != "label")
    list_display = ("label", "owner_email", "state", "hint", "created_at", "last_used_at")
    list_filter = (StateFilter,)
    list_select_related = ("account__owner",)
    search_fields = ("label", "account__owner__email")
    ordering = ("-created_at", "-id")
    actions = ("revoke_selected",)

    @admin.display(description="owner", ordering="account__owner__email")
    def owner_email(self, key: ApiKey) -> str:
        return key.account.owner.email

    @admin.display(description="state")
    def state(self, key: ApiKey) -> str:
        return key.state.label

    @admin.action(description="Revoke selected keys")
    def revoke_selected(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        for key in queryset:
            key_revoke(key=key, actor=Actor.for_request(request, kind=ActorKind.STAFF))
        self.message_user(request, f"Revoked {len(queryset)} key(s).", messages.SUCCESS)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: ApiKey | None = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: ApiKey, form: ModelForm, change: bool) -> None:
        # Only the label is editable; the service cleans it as the dashboard does.
        if "label" in form.changed_data:
            key_rename(
                key=obj, label=obj.label, actor=Actor.for_request(request, kind=ActorKind.STAFF)
            )
