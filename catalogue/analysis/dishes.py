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

from catalogue.analysis.sentences import Join
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
    if connection.vendor == "postgresql":
        with connections[catalogue_read_alias()].cursor() as cursor:
            cursor.execute(
                _NAMED,
                (
                    [j.index for j in found],
                    [_tsquery(j) for j in found],
                    [j.pattern for j in found],
                    BRANDED,
                    market or None,
                    market or None,
                ),
            )
            return {row[0] for row in cursor.fetchall()}
    foods = Food.objects.using(catalogue_read_alias()).exclude(data_type=BRANDED)
    if market:
        foods = foods.filter(market_id=market)
    return {j.index for j in found if foods.filter(name__iregex=j.pattern).exists()}


def _tsquery(join: Join) -> str:
    """Any of the join's readings, every word of it as a prefix (as its pattern reads
    them); the words come from ``text.words`` (letters and digits), so quoting them is
    safe."""
    return " | ".join("(" + " & ".join(f"'{w}':*" for w in words) + ")" for words in join.terms)
