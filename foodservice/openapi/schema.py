"""The product's OpenAPI document (issue 6): ``postprocess`` completes what
drf-spectacular builds from the apps' ``schema.py`` modules (which use the generic
helpers of ``core.openapi``):

- the components the apps registered, the generic ``Problem`` and one
  ``<Kind>Problem`` per kind some operation answers with;
- the endpoint tags and one tag per problem kind (the error reference);
- the opening pages of /docs (``docs/intro.md``), with the tier table from
  ``settings.FOODSERVICE_TIERS``, the key format and the Taster depth;
- the markets offered right now as the ``markets_offered`` enum.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from django.conf import settings
from django.db import DatabaseError
from django.template.loader import render_to_string

from accounts.tiers import Tier, is_paid, tier_limits
from catalogue.selectors import markets_offered
from core.openapi import (
    components,
    error_tag,
    generic_problem_schema,
    problem_component_name,
    problem_facts,
    problem_schema,
    ref,
)
from core.problems import all_problem_types
from core.redis import UNREACHABLE
from keys.schema import KEY_FORMAT

ENDPOINT_TAGS: dict[str, tuple[str, str]] = {
    "foods": ("Foods", "Search and list foods, and read one food."),
    "analysis": ("Analysis", "What is in a meal: ingredient lines to foods, grams, nutrients."),
    "records": ("Records by id", "Nutrients and categories, read by id."),
    "market": ("Market", "The account's market (Taster tier: foods are scoped to it)."),
    "usage": ("Usage", "The account's quota standing. Unmetered."),
}


def tier_rows() -> list[dict[str, str]]:
    """The tier table of /docs, from ``settings.FOODSERVICE_TIERS`` (launch values)."""
    rows = []
    for tier in Tier:
        limits = tier_limits(tier)
        negotiated = "negotiated; default " if tier == Tier.EXECUTIVE_CHEF else ""
        window = {"day": "rolling 24 hours", "month": "billing period (monthly)"}
        rate = "unthrottled" if limits.rate is None else f"{limits.rate:g} / s"
        rows.append(
            {
                "name": tier.label,
                "id": tier.value,
                "quota": f"{negotiated}{limits.quota:,}",
                "window": f"{negotiated}{window[limits.window]}",
                "rate": rate if limits.rate is None else f"{negotiated}{rate}",
                "burst": "unthrottled" if limits.burst is None else f"{negotiated}{limits.burst}",
                "bulk": "yes" if is_paid(tier) else "no: search-first",
                "markets": "all" if is_paid(tier) else "1",
            }
        )
    return rows


def intro() -> str:
    """The opening pages of /docs (Markdown): authentication, tiers, 429s, caching."""
    return render_to_string(
        "docs/intro.md",
        {
            "base_url": settings.BASE_URL,
            "key_format": KEY_FORMAT,
            "tiers": tier_rows(),
            "max_keys": settings.MAX_KEYS_PER_ACCOUNT,
            "depth": f"{settings.TASTER_RESULT_DEPTH:,}",
            "problems": [
                problem_facts(cls)
                for cls in sorted(all_problem_types(), key=lambda c: (c.status_code, c.kind))
            ],
        },
    )


def offered_markets_now() -> list[str] | None:
    """``markets_offered()``, or None when the catalogue cannot be read (the database or
    Redis down): what the served document's ``markets_offered`` enum lists."""
    try:
        return markets_offered()
    except (DatabaseError, *UNREACHABLE):
        return None


def _offered_markets(schemas: dict[str, Any], request: Any) -> None:
    """The markets offered right now as an enum of ``Market.markets_offered`` (issue
    14.5): the served schema is built per request, so it knows them (the catalogue's
    markets, or ``DEFAULT_MARKETS`` while it is empty). Left out when there is no
    request (the system checks build the schema too, and must touch no service) and
    when the catalogue cannot be read: the reference stays up while the database or
    Redis is down."""
    if "Market" not in schemas or request is None:
        return
    codes = offered_markets_now()
    if codes is None:
        return
    market = schemas["Market"] = copy.deepcopy(schemas["Market"])  # the registry stays
    offered = market["properties"]["data"]["properties"]["markets_offered"]
    market["properties"]["data"]["properties"]["markets_offered"] = offered | {
        "items": offered["items"] | {"enum": codes}
    }


def postprocess(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict:
    """``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``: completes the document."""
    kinds = sorted(all_problem_types(), key=lambda cls: (cls.status_code, cls.kind))
    result["info"]["description"] = intro()
    result["info"]["contact"] = dict(settings.API_CONTACT)
    result["info"]["license"] = dict(settings.API_LICENSE)
    result["servers"] = [{"url": settings.BASE_URL}]
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(components())
    _offered_markets(schemas, request)
    schemas["Problem"] = generic_problem_schema()
    used = json.dumps(result["paths"])
    for cls in kinds:
        name = problem_component_name(cls)
        if f'"{ref(name)["$ref"]}"' in used:  # no unused component (issue 14.5)
            schemas[name] = problem_schema(cls)
    endpoint_tags = [
        {"name": name, "x-displayName": display, "description": text}
        for name, (display, text) in ENDPOINT_TAGS.items()
    ]
    result["tags"] = endpoint_tags + [error_tag(cls) for cls in kinds]
    result["x-tagGroups"] = [
        {"name": "Endpoints", "tags": list(ENDPOINT_TAGS)},
        {"name": "Errors", "tags": [cls.kind for cls in kinds]},
    ]
    return result
