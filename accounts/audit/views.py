"""The owner's audit log page: their account's entries, newest first, paged."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from accounts.audit.selectors import audit_for_account
from accounts.views import account_of

PAGE_SIZE = 50


@login_required
@require_GET
def activity(request: HttpRequest) -> HttpResponse:
    account = account_of(request)
    page = Paginator(audit_for_account(account=account), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "audit/activity.html", {"account": account, "page": page})
