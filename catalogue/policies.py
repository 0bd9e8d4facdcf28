"""The Taster structural limits (spec 8.2), lifted on paid tiers. They read the
request's ``KeyPrincipal``; the one other read is the list of markets offered
(``catalogue.selectors.markets_offered``, cached for a minute) when a request names one.

1. search-first: a list needs ``q`` (``EnumerationForbidden``); records by id are fine;
2. depth: about the first 1,000 matches (``ResultDepthExceeded``, enforced by the
   selector with the depth given here);
3. one market: foods requests need it chosen (``MarketNotSelected``) and see only it.
Paid tiers see every market, narrowed by an optional ``market`` filter. A ``market`` the
catalogue does not offer is the ``invalid-parameter`` 400 on every tier (issue 36.6: on a
paid tier it was an empty 200, indistinguishable from a search that found nothing).
"""

from __future__ import annotations

from django.conf import settings

from accounts.tiers import is_paid
from catalogue.search.params import FoodQuery
from catalogue.selectors import markets_offered
from core import problems
from keys.principal import KeyPrincipal


def require_market(*, principal: KeyPrincipal) -> None:
    """Raises ``MarketNotSelected`` for a Taster foods request before a market is
    chosen (spec 3.2), whatever else the request says."""
    if not is_paid(principal.tier) and not principal.market:
        raise problems.MarketNotSelected()


def foods_market(*, principal: KeyPrincipal, requested: str = "") -> str | None:
    """The market a foods request reads: the account's own on Taster (spec 3.2), the
    requested one or None (all) on paid tiers. A ``requested`` market the catalogue does
    not offer is ``InvalidParameter`` naming ``market`` on every tier (after a Taster's
    ``MarketNotSelected``); so is a Taster's naming another market."""
    paid = is_paid(principal.tier)
    if not paid:
        require_market(principal=principal)
        if requested in ("", principal.market):
            return principal.market
    if requested:
        offered = markets_offered()
        if requested not in offered:
            raise problems.InvalidParameter(
                "market",
                f"{requested} is not a market of the catalogue; offered: {', '.join(offered)}.",
            )
    if paid:
        return requested or None
    raise problems.InvalidParameter(
        "market", f"The Taster tier reads its own market only ({principal.market})."
    )


def list_allowed(*, principal: KeyPrincipal, has_q: bool) -> None:
    """Raises ``EnumerationForbidden`` for a Taster list request without ``q``."""
    if not has_q and not is_paid(principal.tier):
        raise problems.EnumerationForbidden()


def depth_limit(*, principal: KeyPrincipal) -> int | None:
    """How many rows of a list the caller may page through; None means no limit."""
    return None if is_paid(principal.tier) else settings.TASTER_RESULT_DEPTH


def check_food_list(*, principal: KeyPrincipal, query: FoodQuery) -> str | None:
    """Applies limits 1 and 3 to a foods list; returns the market to read."""
    market = foods_market(principal=principal, requested=query.market)
    list_allowed(principal=principal, has_q=bool(query.q))
    return market
