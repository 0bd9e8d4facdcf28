"""What the admin pages of several apps share, importing no app."""

from __future__ import annotations

from django.http import HttpRequest


class ReadOnlyAdminMixin:
    """Put before ``admin.ModelAdmin``: staff may list and view the rows, never add,
    change or delete one (logs and histories the code alone writes)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
