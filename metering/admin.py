"""Usage history in the admin: read-only (it is written by the web workers only)."""

from __future__ import annotations

from django.contrib import admin

from core.admin import ReadOnlyAdminMixin
from metering.models import KeyRequest, KeyRequestOutcome, KeyUsageHour


@admin.register(KeyUsageHour)
class KeyUsageHourAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("hour", "key", "account", "count", "failed", "quota_refused", "burst_refused")
    list_filter = ("hour",)
    search_fields = ("key__label", "account__owner__email")
    date_hierarchy = "hour"
    list_select_related = ("key", "account__owner")
    ordering = ("-hour", "key")


@admin.register(KeyRequestOutcome)
class KeyRequestOutcomeAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("hour", "key", "endpoint", "status", "kind", "counted", "requests")
    list_filter = ("status", "counted", "hour")
    search_fields = ("key__label", "account__owner__email", "endpoint")
    date_hierarchy = "hour"
    list_select_related = ("key",)
    ordering = ("-hour", "key", "endpoint")


@admin.register(KeyRequest)
class KeyRequestAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """The recent-requests log (never a query string, a header or a body)."""

    list_display = ("at", "key", "method", "path", "status", "kind", "latency_ms", "address")
    list_filter = ("status", "method")
    search_fields = ("key__label", "account__owner__email", "path", "request_id", "address")
    list_select_related = ("key",)
    ordering = ("-at",)
