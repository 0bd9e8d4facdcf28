"""Look-alike foods (docs/catalogue.md, "Look-alikes"): foods sharing a
``variant_key`` (catalogue.ranking.variant_key) in one market form a group; searches
show one of them, whose ``variant_count`` is the group's size, and hide the others
(``variant_count`` 0). ``GET /v1/foods?variant_of=<id>`` lists a whole group.

The shown food is the best ranked (lowest ``rank_quality``), then an SR28 record
(every nutrient USDA measured, with portions) before the FDC table's copy of it, then
one whose energy is given before a copy without it, then the lowest row id.
"""

from __future__ import annotations

from django.db import connection

_GROUPS = """
    SELECT id, CASE WHEN row_number() OVER w = 1 THEN count(*) OVER w ELSE 0 END AS n
    FROM catalogue_food WHERE variant_key IS NOT NULL
    WINDOW w AS (PARTITION BY variant_key, market_id
                 ORDER BY coalesce(rank_quality, 63), source <> 'sr28', energy_kcal IS NULL, id
                 ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
"""


def refresh() -> int:
    """Recomputes every food's ``variant_count`` from the ``variant_key`` groups,
    writing only the rows whose count changes; returns how many changed. The loader
    runs it at the end of every load (inside its transaction); a food written another
    way (admin, tests) is shown on its own until the next refresh."""
    if connection.vendor == "postgresql":
        sql = (
            f"UPDATE catalogue_food f SET variant_count = g.n FROM ({_GROUPS}) g "  # noqa: S608
            "WHERE f.id = g.id AND f.variant_count IS DISTINCT FROM g.n"
        )
    else:
        sql = (
            f"UPDATE catalogue_food SET variant_count = g.n FROM ({_GROUPS}) g "  # noqa: S608
            "WHERE catalogue_food.id = g.id AND catalogue_food.variant_count IS NOT g.n"
        )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.rowcount
