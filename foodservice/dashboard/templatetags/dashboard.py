"""Template filters of the dashboard: numbers, limits and windows in plain words."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

from accounts.tiers import TierLimits
from foodservice.dashboard.forms import describe_burst
from metering.selectors import Release

register = template.Library()


@register.filter
def number(value: int | float | None) -> str:
    """``250000`` -> ``250,000``; None -> an em dash."""
    if value is None:
        return "—"
    return f"{value:,.0f}" if isinstance(value, float) else f"{value:,}"


@register.filter
def window_label(limits: TierLimits) -> str:
    """The quota window in words (spec 8.1)."""
    if limits.window == "day":
        return "rolling 24 hours"
    return "billing month"


@register.filter
def quota_label(limits: TierLimits) -> str:
    return f"{limits.quota:,} requests per {'day' if limits.window == 'day' else 'month'}"


@register.filter
def burst_label(limits: TierLimits) -> str:
    text = describe_burst(limits)
    return text[:1].upper() + text[1:]


@register.filter
def percent(used: int | None, quota: int | None) -> str:
    if used is None or not quota:
        return "—"
    # One format on every page (issue 40.6: "0.0 %", "0.1 %" beside "100 %"): whole
    # percent, "<1%" for a share that rounds to nothing but is not, never 100 % before
    # the last request is used.
    share = 100 * used / quota
    if 0 < share < 1:
        return "<1%"
    whole = round(share)
    if whole >= 100 and used < quota:
        whole = 99
    return f"{whole}%"


@register.filter
def ago(moment: datetime | None) -> str:
    """``3 hours ago``; ``just now`` under a minute; ``never`` for None."""
    if moment is None:
        return "never"
    if (timezone.now() - moment).total_seconds() < 60:
        return "just now"
    return f"{timesince(moment)} ago"


@register.filter
def releases_text(releases: Sequence[Release], shown: int = 3) -> str:
    """When a rolling day's usage frees up, in words: "12 requests free up at 14:00 on
    26 Nov, 30 at 15:00 and 8 at 16:00 UTC" (the first ``shown`` hours, then how many
    more). The date is given with the first time and again where it changes, so
    tomorrow's 09:00 never reads as this morning's (issue 29)."""
    if not releases:
        return ""
    parts = []
    day = None
    for r in releases[:shown]:
        when = f"{r.at:%H:%M}"
        if r.at.date() != day:
            day = r.at.date()
            when += f" on {r.at.day} {r.at:%b}"
        parts.append(f"{r.requests:,} at {when}")
    first = releases[0]
    verb = "request frees" if first.requests == 1 else "requests free"
    parts[0] = f"{first.requests:,} {verb} up at" + parts[0][len(f"{first.requests:,} at") :]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    later = sum(r.requests for r in releases[shown:])
    return f"{text} UTC" + (f", {later:,} more later" if later else "")


@register.filter
def soon(moment: datetime | None) -> bool:
    """Whether ``moment`` is within the next 7 days (a key's expiry worth pointing out)."""
    if moment is None:
        return False
    return timezone.now() < moment <= timezone.now() + timedelta(days=7)
