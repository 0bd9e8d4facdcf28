"""Look-alike foods (docs/catalogue.md, "Look-alikes"): foods sharing a
``variant_key`` (catalogue.search.ranking.variant_key) in one market form a group; searches
show one of them, whose ``variant_count`` is the group's size, and hide the others
(``variant_count`` 0). ``GET /v1/foods?variant_of=<id>`` lists a whole group.

The shown food is the best ranked (lowest ``rank_quality``), then an SR28 record
(every nutrient USDA measured, with portions) before the FDC table's copy of it, then
one whose energy is given before a copy without it, then the lowest row id.
"""

from __future__ import annotations

from typing import Protocol

from django.db import connection


class Changes(Protocol):
    """What ``refresh`` reads of a load's bookkeeping
    (``catalogue.importers.changes.Changes``, which imports this module: a protocol
    here keeps the import one way)."""

    max_id: int

    def snapshot_query(self, ids: str, params: list[object]) -> None: ...


_GROUPS = """
    SELECT id, CASE WHEN row_number() OVER w = 1 THEN count(*) OVER w ELSE 0 END AS n
    FROM catalogue_food WHERE variant_key IS NOT NULL {scope}
    WINDOW w AS (PARTITION BY variant_key, market_id
                 ORDER BY coalesce(rank_quality, 63), source <> 'sr28', energy_kcal IS NULL, id
                 ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
"""
# The groups (key and market) a load touched: its new foods', and the old and new keys
# of the foods it changed (catalogue.importers.changes).
_TOUCHED_GROUPS = """
    SELECT variant_key, market_id FROM catalogue_food WHERE id > %s AND variant_key IS NOT NULL
    UNION SELECT variant_key, market_id FROM catalogue_load_old WHERE variant_key IS NOT NULL
    UNION SELECT f.variant_key, f.market_id FROM catalogue_food f
          JOIN catalogue_load_old o ON o.id = f.id WHERE f.variant_key IS NOT NULL
"""
_SCOPE = (
    "AND (variant_key, market_id) IN (SELECT variant_key, market_id FROM catalogue_load_groups)"
)


def refresh(*, touched: Changes | None = None) -> int:
    """Recomputes every food's ``variant_count`` from the ``variant_key`` groups,
    writing only the rows whose count changes; returns how many changed. The loader
    runs it at the end of every load (inside its transaction) with ``touched``, its
    ``Changes``: then only the groups the load touched are recomputed, and the foods
    whose count changes are snapshot first (``Changes.snapshot``). A food written
    another way (admin, tests) is shown on its own until the next refresh."""
    scope = ""
    with connection.cursor() as cursor:
        if touched is not None:
            cursor.execute("DROP TABLE IF EXISTS catalogue_load_groups")
            cursor.execute(
                "CREATE TEMP TABLE catalogue_load_groups AS " + _TOUCHED_GROUPS, [touched.max_id]
            )
            if connection.vendor == "postgresql":
                cursor.execute("ANALYZE catalogue_load_groups")
            scope = _SCOPE
        groups = _GROUPS.format(scope=scope)
        cursor.execute("DROP TABLE IF EXISTS catalogue_load_counts")
        cursor.execute(
            "CREATE TEMP TABLE catalogue_load_counts AS "  # noqa: S608
            f"SELECT g.id, g.n FROM ({groups}) g JOIN catalogue_food f ON f.id = g.id "
            "WHERE f.variant_count IS NULL OR f.variant_count <> g.n"
        )
        cursor.execute("SELECT EXISTS (SELECT 1 FROM catalogue_load_counts)")
        if not cursor.fetchone()[0]:  # no statement: workers keep what they hold
            cursor.execute("DROP TABLE catalogue_load_counts")
            if touched is not None:
                cursor.execute("DROP TABLE catalogue_load_groups")
            return 0
        if touched is not None:
            touched.snapshot_query(
                "SELECT id FROM catalogue_load_counts WHERE id <= %s", [touched.max_id]
            )
        if connection.vendor == "postgresql":
            sql = (
                "UPDATE catalogue_food f SET variant_count = g.n FROM catalogue_load_counts g "
                "WHERE f.id = g.id"
            )
        else:
            sql = (
                "UPDATE catalogue_food SET variant_count = g.n FROM catalogue_load_counts g "
                "WHERE catalogue_food.id = g.id"
            )
        cursor.execute(sql)
        changed = cursor.rowcount
        cursor.execute("DROP TABLE catalogue_load_counts")
        if touched is not None:
            cursor.execute("DROP TABLE catalogue_load_groups")
        return changed
