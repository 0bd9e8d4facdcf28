"""``manage.py set_tier EMAIL TIER [--quota N] [--window day|month] [--rate R] [--burst B]
[--unthrottled] [--json]``: change the account's tier, for every key at once (spec 3.3).

Custom values are Executive Chef's negotiated limits; any one of them given fills the
rest from the executive_chef row of ``settings.FOODSERVICE_TIERS``. ``--unthrottled``
negotiates no burst limit (rate and burst both none). On any other tier they are refused.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils import timezone

from accounts.audit.actors import Actor
from accounts.selectors import account_get_by_email
from accounts.services import account_set_tier
from accounts.tiers import WINDOWS, Tier, TierLimits, tier_limits
from core.calendar import billing_period
from core.cli import ServiceCommand, iso


class Command(ServiceCommand):
    help = "Set the tier of the account of EMAIL; custom limits only for executive_chef."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("email")
        parser.add_argument("tier", help=f"One of {', '.join(Tier.values)}.")
        parser.add_argument("--quota", type=int, help="Requests per window.")
        parser.add_argument("--window", choices=WINDOWS)
        throttle = parser.add_mutually_exclusive_group()
        throttle.add_argument("--unthrottled", action="store_true", help="No burst limit.")
        throttle.add_argument("--rate", type=float, help="Sustained requests per second.")
        parser.add_argument("--burst", type=int, help="Burst bucket size.")

    def handle(self, *args: Any, **options: Any) -> None:
        account = account_get_by_email(email=options["email"])
        now = timezone.now()
        account = account_set_tier(
            account=account,
            tier=options["tier"],
            custom=_custom(options),
            now=now,
            actor=Actor.operator("set_tier"),
        )
        limits = account.limits
        anchor = account.billing_anchor if limits.window == "month" else None
        payload = {
            "email": account.owner.email,
            "tier": account.tier,
            **dataclasses.asdict(limits),
            "renewal": iso(billing_period(anchor, now)[1]) if anchor else None,
        }
        burst = "unthrottled" if limits.unthrottled else f"{limits.rate:g}/s, burst {limits.burst}"
        renews = f"renews {payload['renewal']}" if anchor else "rolling daily window"
        self.emit(
            payload,
            human=f"{account.owner.email} is on {account.tier}: {limits.quota} requests per "
            f"{limits.window} ({renews}); {burst}.",
        )


def _custom(options: dict[str, Any]) -> TierLimits | None:
    """Executive Chef's negotiated limits from the options, None when none is given."""
    given = {k: options[k] for k in ("quota", "window", "rate", "burst") if options[k] is not None}
    if options["unthrottled"]:
        if options["burst"] is not None:
            raise CommandError("--unthrottled takes no --burst.")
        given.update(rate=None, burst=None)
    if not given:
        return None
    try:
        return dataclasses.replace(tier_limits(Tier.EXECUTIVE_CHEF), **given)
    except ValueError as exc:
        raise CommandError(f"Invalid custom limits: {exc}.") from None
