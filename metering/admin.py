"""Usage history in the admin: read-only (it is written by the web workers only)."""

from __future__ import annotations

from django.contrib import admin

from core.admin import ReadOnlyAdminMixin
from metering.models import KeyUsageHour


@admin.register(KeyUsageHour)
class KeyUsageHourAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("hour", "key", "account", "count", "failed", "quota_refused", "burst_refused")
    list_filter = ("hour",)
    search_fields = ("key__label", "account__owner__email")
    date_hierarchy = "hour"
    list_select_related = ("key", "account__owner")
    ordering = ("-hour", "key")
