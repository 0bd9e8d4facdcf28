"""Dashboard routes for people and accounts. Mounted at the site root: the names
``login`` and ``dashboard`` are the settings' LOGIN_URL and LOGIN_REDIRECT_URL."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views

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
]
