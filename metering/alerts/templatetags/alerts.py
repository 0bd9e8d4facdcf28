from __future__ import annotations

from django import template

from accounts.models import Account
from metering.alerts.selectors import alerts_enabled

register = template.Library()


@register.simple_tag
def quota_alerts_enabled(account: Account) -> bool:
    """Whether ``account`` gets quota alerts (for the switch on the plan page)."""
    return alerts_enabled(account=account)
