"""Routes: the /v1 API, the dashboard, the admin."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path, re_path

from catalogue.market_api import MarketView
from core import metrics
from foodservice.http import errors
from foodservice.openapi import docs
from foodservice.ops import health
from metering.api import UsageHistoryView, UsageOutcomesView, UsageRequestsView, UsageView

api_v1 = [
    path("market", MarketView.as_view(), name="market"),
    path("usage", UsageView.as_view(), name="usage"),
    path("usage/history", UsageHistoryView.as_view(), name="usage-history"),
    path("usage/outcomes", UsageOutcomesView.as_view(), name="usage-outcomes"),
    path("usage/requests", UsageRequestsView.as_view(), name="usage-requests"),
    path("", include("catalogue.urls")),
    # Anything else under /v1 is a 404 problem, whatever DEBUG says.
    re_path(r"^.*$", errors.ApiNotFound.as_view()),
]

urlpatterns = [
    path("v1/", include((api_v1, "v1"))),
    re_path(r"^v1$", errors.ApiNotFound.as_view()),
    path("admin/", admin.site.urls),
    # The API reference (issue 6): no key, never metered.
    path("openapi.json", docs.SchemaView.as_view(), name="openapi"),
    path("docs", docs.docs, name="docs"),
    path("docs/redoc.js", docs.redoc_bundle, name="docs-redoc"),
    # Operations (issue 7): probes and the Prometheus scrape; no API key, never metered.
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics_view, name="metrics"),
    # The dashboard (issue 5, its own app since issue 15): people, plan and market at the
    # root, keys, usage, the audit log and the quota-alert switch.
    path("", include("foodservice.dashboard.urls")),
]

handler400 = errors.bad_request
handler403 = errors.permission_denied
handler404 = errors.page_not_found
handler500 = errors.server_error
