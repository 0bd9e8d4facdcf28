"""The audit log in the admin: every account's entries, read-only and filterable."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from accounts.audit.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = ("at", "action", "summary", "account", "actor_kind", "actor_label", "address")
    list_filter = ("action", "actor_kind", "at")
    search_fields = ("actor_label", "target", "address", "account__owner__email")
    date_hierarchy = "at"
    list_select_related = ("account__owner",)
    ordering = ("-at", "-id")
    fields = (
        "at",
        "action",
        "summary",
        "account",
        "actor_kind",
        "actor",
        "actor_label",
        "address",
        "target",
        "detail",
    )
    readonly_fields = fields

    @admin.display(description="what")
    def summary(self, entry: AuditEntry) -> str:
        return entry.summary

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
