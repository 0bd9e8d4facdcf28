"""Routes: the /v1 API, the dashboard, the admin."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path, re_path

from accounts.api import MarketView
from accounts.audit import views as audit_views
from foodservice import docs, errors, health, metrics
from metering import views as usage_views
from metering.alerts import views as alerts_views
from metering.api import UsageView

api_v1 = [
    path("market", MarketView.as_view(), name="market"),
    path("usage", UsageView.as_view(), name="usage"),
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
    # The dashboard (issue 5): people, plan and market at the root, keys, usage.
    path("keys/", include("keys.urls")),
    path("usage/", usage_views.usage, name="usage"),
    path("usage/usage.csv", usage_views.usage_csv, name="usage-csv"),
    path("usage/keys/<int:key_id>/", usage_views.key_usage, name="key-usage"),
    path("usage/keys/<int:key_id>/usage.csv", usage_views.key_usage_csv, name="key-usage-csv"),
    path("activity/", audit_views.activity, name="activity"),
    path("alerts/", alerts_views.quota_alerts, name="quota-alerts"),
    path("", include("accounts.urls")),
]

handler400 = errors.bad_request
handler403 = errors.permission_denied
handler404 = errors.page_not_found
handler500 = errors.server_error
