"""/v1 catalogue routes (foods, records by id)."""

from __future__ import annotations

urlpatterns: list = []
