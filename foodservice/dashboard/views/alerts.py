"""Dashboard view of the owner's quota-alert switch (a form on the plan page; issue 16)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from foodservice.dashboard.views.accounts import account_of
from metering.alerts.services import alerts_set_enabled, expiry_alerts_set_enabled


class QuotaAlertsForm(forms.Form):
    enabled = forms.BooleanField(required=False)


@login_required
@require_POST
def quota_alerts(request: HttpRequest) -> HttpResponse:
    form = QuotaAlertsForm(request.POST)
    form.is_valid()  # an unchecked box is absent: False, never an error
    enabled = bool(form.cleaned_data.get("enabled"))
    alerts_set_enabled(account=account_of(request), enabled=enabled)
    if enabled:
        messages.success(request, "Quota alerts are on: we e-mail you at 80 % and 100 %.")
    else:
        messages.success(request, "Quota alerts are off.")
    return redirect("plan")


@login_required
@require_POST
def expiry_alerts(request: HttpRequest) -> HttpResponse:
    """The key expiry reminders' switch (issue 29.2), like the quota alerts'."""
    form = QuotaAlertsForm(request.POST)
    form.is_valid()
    enabled = bool(form.cleaned_data.get("enabled"))
    expiry_alerts_set_enabled(account=account_of(request), enabled=enabled)
    if enabled:
        messages.success(request, "Key expiry reminders are on: 7 days and 1 day before.")
    else:
        messages.success(request, "Key expiry reminders are off.")
    return redirect("plan")
