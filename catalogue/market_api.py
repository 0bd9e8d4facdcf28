"""The market endpoints (spec 3.2, 4): unmetered, for any authenticated key. The account
owns its market (accounts.services.account_set_market); the catalogue knows which markets
it offers, so the endpoint lives here, above both (issue 37)."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.audit.actors import Actor
from accounts.models import Account
from accounts.services import account_set_market
from catalogue.selectors import markets_offered, markets_offered_named
from core import problems


def _market_body(market: str) -> dict[str, Any]:
    named = markets_offered_named()
    return {
        "data": {
            "market": market or None,
            "markets_offered": [code for code, _ in named],
            "markets": [{"code": code, "name": name} for code, name in named],
        }
    }


class MarketView(APIView):
    """``GET /v1/market``: the account's market (null until chosen) and the offered ones.
    ``PUT /v1/market`` with ``{"market": "US"}``: choose it. Neither is metered."""

    def get(self, request: Request) -> Response:
        return Response(_market_body(request.auth.market))

    def put(self, request: Request) -> Response:
        body = request.data
        if not isinstance(body, dict):
            raise problems.MalformedRequest('The body must be a JSON object: {"market": "US"}.')
        if "market" not in body:
            raise problems.ValidationFailed({"market": "This field is required."})
        account = Account.objects.get(pk=request.auth.account_id)
        actor = Actor.for_api_key(request, key_id=request.auth.key_id)
        account = account_set_market(
            account=account, market=body["market"], offered=markets_offered(), actor=actor
        )
        return Response(_market_body(account.market))
