"""The Taster structural limits (spec 8.2), lifted on paid tiers. Pure: they read the
request's ``KeyPrincipal``, never the database.

1. search-first: a list needs ``q`` (``EnumerationForbidden``); records by id are fine;
2. depth: about the first 1,000 matches (``ResultDepthExceeded``, enforced by the
   selector with the depth given here);
3. one market: foods requests need it chosen (``MarketNotSelected``) and see only it.
Paid tiers see every market, narrowed by an optional ``market`` filter.
"""

from __future__ import annotations

from accounts.tiers import is_paid
from catalogue.params import FoodQuery
from foodservice.core import problems
from keys.principal import KeyPrincipal

# spec 8.1/8.2: Taster reads "about the first 1,000" matches of a search.
TASTER_DEPTH = 1000


def require_market(*, principal: KeyPrincipal) -> None:
    """Raises ``MarketNotSelected`` for a Taster foods request before a market is
    chosen (spec 3.2), whatever else the request says."""
    if not is_paid(principal.tier) and not principal.market:
        raise problems.MarketNotSelected()


def foods_market(*, principal: KeyPrincipal, requested: str = "") -> str | None:
    """The market a foods request reads: the account's own on Taster (spec 3.2), the
    requested one or None (all) on paid tiers."""
    if is_paid(principal.tier):
        return requested or None
    require_market(principal=principal)
    if requested and requested != principal.market:
        raise problems.InvalidParameter(
            "market", f"The Taster tier reads its own market only ({principal.market})."
        )
    return principal.market


def list_allowed(*, principal: KeyPrincipal, has_q: bool) -> None:
    """Raises ``EnumerationForbidden`` for a Taster list request without ``q``."""
    if not has_q and not is_paid(principal.tier):
        raise problems.EnumerationForbidden()


def depth_limit(*, principal: KeyPrincipal) -> int | None:
    """How many rows of a list the caller may page through; None means no limit."""
    return None if is_paid(principal.tier) else TASTER_DEPTH


def check_food_list(*, principal: KeyPrincipal, query: FoodQuery) -> str | None:
    """Applies limits 1 and 3 to a foods list; returns the market to read."""
    market = foods_market(principal=principal, requested=query.market)
    list_allowed(principal=principal, has_q=bool(query.q))
    return market
