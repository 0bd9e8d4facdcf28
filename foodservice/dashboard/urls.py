"""Dashboard routes, mounted at the site root: people and accounts, plan and market at
the root, keys under /keys/ (the ``keys`` namespace), usage under /usage/, the audit log
at /activity/ and the quota-alert switch at /alerts/. The names ``login`` and
``dashboard`` are the settings' LOGIN_URL and LOGIN_REDIRECT_URL."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import include, path

from foodservice.dashboard.views import accounts as views
from foodservice.dashboard.views import activity as activity_views
from foodservice.dashboard.views import alerts as alerts_views
from foodservice.dashboard.views import keys as key_views
from foodservice.dashboard.views import playground as playground_views
from foodservice.dashboard.views import usage as usage_views

key_patterns = [
    path("", key_views.key_list, name="list"),
    path("new/", key_views.create, name="create"),
    path("<int:key_id>/rotate/", key_views.rotate, name="rotate"),
    path("<int:key_id>/revoke/", key_views.revoke, name="revoke"),
    path("<int:key_id>/rename/", key_views.rename, name="rename"),
    path("<int:key_id>/addresses/", key_views.addresses, name="addresses"),
]

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("signup/", views.sign_up, name="signup"),
    path("signup/sent/", views.sign_up_sent, name="signup-sent"),
    path("login/", views.SignInView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("verify-email/resend/", views.resend_verification, name="verify-email-resend"),
    path("verify-email/<str:token>/", views.verify_email, name="verify-email"),
    path("password-reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path(
        "password-reset/sent/",
        auth_views.PasswordResetDoneView.as_view(
            template_name="registration/password_reset_done.html"
        ),
        name="password_reset_done",
    ),
    path(
        "password-reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password-reset/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="registration/password_reset_complete.html"
        ),
        name="password_reset_complete",
    ),
    path("plan/", views.plan, name="plan"),
    path("plan/change/", views.plan_change, name="plan-change"),
    path("market/", views.market, name="market"),
    path("keys/", include((key_patterns, "keys"))),
    path("usage/", usage_views.usage, name="usage"),
    path("usage/usage.csv", usage_views.usage_csv, name="usage-csv"),
    path("usage/keys/<int:key_id>/", usage_views.key_usage, name="key-usage"),
    path("usage/keys/<int:key_id>/usage.csv", usage_views.key_usage_csv, name="key-usage-csv"),
    path("activity/", activity_views.activity, name="activity"),
    path("playground/", playground_views.playground, name="playground"),
    path("foods/<str:public_id>/", playground_views.food, name="food"),
    path("alerts/", alerts_views.quota_alerts, name="quota-alerts"),
    path("alerts/expiry/", alerts_views.expiry_alerts, name="expiry-alerts"),
]
