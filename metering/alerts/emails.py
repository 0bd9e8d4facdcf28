"""The quota alert e-mail, through Django's e-mail framework.

Sent outside any request, so its links are built from ``settings.BASE_URL``. It names
the account, the numbers and the window, and links to the plan page (where alerts are
switched off too); it never mentions a key, let alone a secret.
"""

from __future__ import annotations

from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse

from accounts.models import Account
from metering.alerts.models import QuotaAlert
from metering.selectors import UsageSummary


def send_quota_alert(*, account: Account, alert: QuotaAlert, usage: UsageSummary) -> None:
    """E-mail ``account``'s owner that ``alert.threshold`` % of the quota is used."""
    context = {
        "account": account,
        "alert": alert,
        "usage": usage,
        "monthly": account.limits.window == "month",
        "plan_url": f"{settings.BASE_URL}{reverse('plan')}",
    }
    subject = render_to_string("alerts/email/quota_subject.txt", context).strip()
    body = render_to_string("alerts/email/quota_body.txt", context)
    send_mail(subject, body, None, [account.owner.email])
