"""Which soft cuts of a sentence join a dish the catalogue names (issue 39.3).

``named`` answers every ``catalogue.analysis.sentences.Join`` of one text at once: a
join is a dish when a reference (not branded) food of the market has a name the join's
pattern matches ("Macaroni and cheese, frozen entree" for "mac and cheese"). On
PostgreSQL one statement for every join, each an ``EXISTS`` probe of the GIN-indexed
``search_vector`` (the join's words, every one a prefix) rechecked by the pattern on
the rows it finds; on SQLite (tests, development) one query per join.
"""

from __future__ import annotations

from django.db import connection, connections

from catalogue.analysis.sentences import PREFIX_FROM, Join
from catalogue.models import Food
from catalogue.routing import catalogue_read_alias
from catalogue.search.ranking import BRANDED

_NAMED = (
    "SELECT t.i FROM unnest(%s::int[], %s::text[], %s::text[]) AS t(i, q, pattern) "
    "WHERE numnode(to_tsquery('english'::regconfig, t.q)) > 0 AND EXISTS ("
    "SELECT 1 FROM catalogue_food WHERE search_vector @@ to_tsquery('english'::regconfig, t.q) "
    "AND name ~* t.pattern AND data_type <> %s "
    "AND (%s::varchar IS NULL OR market_id = %s::varchar))"
)


def named(found: list[Join], market: str | None) -> set[int]:
    """The indexes of the joins of ``found`` that make a dish some reference food of
    ``market`` (None: any) is named after."""
    if not found:
        return set()
    # One probe per distinct reading: "salt and pepper" said twice is asked once.
    distinct = list({j.pattern: j for j in found}.values())
    if connection.vendor == "postgresql":
        with connections[catalogue_read_alias()].cursor() as cursor:
            cursor.execute(
                _NAMED,
                (
                    list(range(len(distinct))),
                    [_tsquery(j) for j in distinct],
                    [j.pattern for j in distinct],
                    BRANDED,
                    market or None,
                    market or None,
                ),
            )
            dishes = {distinct[row[0]].pattern for row in cursor.fetchall()}
    else:
        foods = Food.objects.using(catalogue_read_alias()).exclude(data_type=BRANDED)
        if market:
            foods = foods.filter(market_id=market)
        dishes = {j.pattern for j in distinct if foods.filter(name__iregex=j.pattern).exists()}
    return {j.index for j in found if j.pattern in dishes}


def _tsquery(join: Join) -> str:
    """Any of the join's readings, every word of it, a prefix from ``PREFIX_FROM`` letters
    (as its pattern reads them); the words come from ``text.words`` (letters and
    digits), so quoting them is safe."""
    return " | ".join(
        "(" + " & ".join(f"'{w}'" + (":*" if len(w) >= PREFIX_FROM else "") for w in words) + ")"
        for words in join.terms
    )
