"""Template tag of the plan page's quota-alert switch (issue 16)."""

from __future__ import annotations

from django import template

from accounts.models import Account
from metering.alerts.selectors import alerts_enabled, expiry_alerts_enabled

register = template.Library()


@register.simple_tag
def quota_alerts_enabled(account: Account) -> bool:
    """Whether ``account`` gets quota alerts (for the switch on the plan page)."""
    return alerts_enabled(account=account)


@register.simple_tag
def key_expiry_alerts_enabled(account: Account) -> bool:
    """Whether ``account`` gets key expiry reminders (the plan page's second switch)."""
    return expiry_alerts_enabled(account=account)
