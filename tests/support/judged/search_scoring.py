"""Scores search on the judged query set (``search_set``; issue 12, point 4, and issue
27): each query through ``catalogue.search.selectors.food_search`` (page 1, as the API does,
typo fallback included), its rows judged against the query's pattern.

Targets (full catalogue): a whole food in the top 3 for >= 95% of the staples, the meant
food in the top 5 for >= 90% of the misspellings; judged on the FIRST row (issue 27):
the typical food for >= 95% of ``FIRST``, 80% of ``REGIONAL`` names, 85% of ``LONG``
queries and 95% of ``INDIAN`` ones (market IN). ``evaluate`` reads the module's
``STAPLES``, ``MISSPELLINGS`` and ``FIRST_ROW``, so a caller may judge a part of the set.

Dishes people log (issue 39, point 5; ``dish_set``): ``evaluate_dishes`` judges each
dish's first row, >= 95% in each market (``DISHES``, read the same way), and
``empty`` lists the queries of any judged set whose first page was empty (the target:
none, for a query whose words name a food).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from catalogue.search import selectors
from catalogue.search.paging import Position
from catalogue.search.params import parse_food_query
from tests.support.judged import dish_set
from tests.support.judged.search_set import (
    FIRST,
    INDIAN,
    LONG,
    LONG_HELD_OUT,
    MISSPELLINGS,
    MISSPELLINGS_MORE,
    REGIONAL,
    STAPLES,
)

REFERENCE = {"foundation", "sr_legacy", "survey"}
STAPLE_TARGET, MISSPELLING_TARGET = 0.95, 0.90
MISSPELLINGS = MISSPELLINGS + MISSPELLINGS_MORE
# Judged on the first row (issue 27): kind -> (queries, market, reference only, target).
FIRST_ROW = {
    "first": (FIRST, "US", True, 0.95),
    "regional": (REGIONAL, "US", True, 0.80),
    "long": (LONG, "US", True, 0.85),
    "long_held_out": (LONG_HELD_OUT, "US", True, 0.85),
    "indian": (INDIAN, "IN", False, 0.95),
}
KINDS = ("staple", "misspelling", *FIRST_ROW)
# Dishes people log (issue 39): kind -> (queries, market, target); judged on the first
# row, a reference food in market US unless dish_set.US_ANY_DATA_TYPE names the query.
DISHES = {
    "dish_us": (dish_set.US, "US", 0.95),
    "dish_in": (dish_set.IN, "IN", 0.95),
}
DISH_KINDS = tuple(DISHES)
TARGETS = {"staple": STAPLE_TARGET, "misspelling": MISSPELLING_TARGET} | {
    kind: spec[3] for kind, spec in FIRST_ROW.items()
}


@dataclass(frozen=True, slots=True)
class Outcome:
    kind: str  # one of KINDS
    query: str
    pattern: str
    hit: bool
    shown: list[tuple[str, str]]  # (data_type, name) of the rows judged
    corrected_q: str | None


def top(q: str, count: int, market: str = "US") -> tuple[list[dict[str, Any]], str | None]:
    """The first ``count`` rows of page 1 for ``q`` (as served) and the corrected query."""
    query = parse_food_query({"q": [q]})
    page = selectors.food_search(query=query, market=market, depth=1000, position=Position(0))
    # A page's rows carry each food's summary as served (issue 13: pre-rendered bytes).
    return [json.loads(row["summary"]) for row in page.rows[:count]], page.corrected_q


def evaluate() -> list[Outcome]:
    """Every judged query's outcome, staples first."""
    outcomes = []
    for q, pattern in STAPLES:
        rows, corrected = top(q, 3)
        wanted = re.compile(pattern, re.I)
        hit = any(r["data_type"] in REFERENCE and wanted.match(r["name"]) for r in rows)
        shown = [(r["data_type"], r["name"]) for r in rows]
        outcomes.append(Outcome("staple", q, pattern, hit, shown, corrected))
    for q, pattern in MISSPELLINGS:
        rows, corrected = top(q, 5)
        wanted = re.compile(pattern, re.I)
        hit = any(wanted.search(r["name"]) for r in rows)
        shown = [(r["data_type"], r["name"]) for r in rows]
        outcomes.append(Outcome("misspelling", q, pattern, hit, shown, corrected))
    for kind, (queries, market, reference, _) in FIRST_ROW.items():
        for q, pattern in queries:
            rows, corrected = top(q, 3, market)
            wanted = re.compile(pattern, re.I)
            first = rows[0] if rows else None
            hit = first is not None and bool(wanted.match(first["name"]))
            hit = hit and (not reference or first["data_type"] in REFERENCE)
            shown = [(r["data_type"], r["name"]) for r in rows]
            outcomes.append(Outcome(kind, q, pattern, hit, shown, corrected))
    return outcomes


def evaluate_dishes() -> list[Outcome]:
    """Every judged dish's outcome (``DISHES``), market US first."""
    outcomes = []
    for kind, (queries, market, _) in DISHES.items():
        for q, pattern in queries:
            rows, corrected = top(q, 3, market)
            first = rows[0] if rows else None
            hit = first is not None and bool(re.search(pattern, first["name"], re.I))
            if market == "US" and q not in dish_set.US_ANY_DATA_TYPE:
                hit = hit and first is not None and first["data_type"] in REFERENCE
            shown = [(r["data_type"], r["name"]) for r in rows]
            outcomes.append(Outcome(kind, q, pattern, hit, shown, corrected))
    return outcomes


def empty(outcomes: list[Outcome]) -> list[Outcome]:
    """The outcomes whose first page showed no food at all."""
    return [o for o in outcomes if not o.shown]


def rates(outcomes: list[Outcome], kinds: tuple[str, ...] = KINDS) -> dict[str, tuple[int, int]]:
    """kind -> (hits, queries), for each of ``kinds``."""
    out: dict[str, tuple[int, int]] = {}
    for kind in kinds:
        of_kind = [o for o in outcomes if o.kind == kind]
        out[kind] = (sum(o.hit for o in of_kind), len(of_kind))
    return out


def report(outcomes: list[Outcome], kinds: tuple[str, ...] = KINDS) -> list[str]:
    """One MISS line per miss, followed by what was found, then a rate line per kind
    (of ``kinds``)."""
    lines = []
    for o in outcomes:
        if o.hit:
            continue
        corrected = f" (searched as {o.corrected_q!r})" if o.corrected_q else ""
        lines.append(f"MISS {o.kind} {o.query!r}{corrected}: wanted /{o.pattern}/, got")
        lines += [f"    {data_type:12} {name}" for data_type, name in o.shown] or ["    nothing"]
    for kind, (hits, total) in rates(outcomes, kinds).items():
        if total:
            lines.append(f"{kind}s: {hits}/{total} = {hits / total:.1%}")
    return lines
