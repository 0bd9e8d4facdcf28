"""The audit log in the admin: every account's entries, read-only and filterable."""

from __future__ import annotations

from django.contrib import admin

from accounts.audit.models import AuditEntry
from core.admin import ReadOnlyAdminMixin


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
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
