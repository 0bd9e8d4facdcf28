"""Quota alerts in the admin: what was sent (read-only)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from metering.alerts.models import QuotaAlert


@admin.register(QuotaAlert)
class QuotaAlertAdmin(admin.ModelAdmin):
    list_display = ("sent_at", "account", "threshold", "used", "quota", "window_start")
    list_filter = ("threshold",)
    search_fields = ("account__owner__email",)
    list_select_related = ("account__owner",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
