"""What a load changed, and the upkeep that follows from it, set-based (issue 28).

A load writes foods in batches; maintaining the phrase index and the typo vocabulary
(``catalogue_food_phrase``, ``catalogue_word``: statement triggers of migration 0013)
batch by batch, and regrouping every look-alike after it, cost minutes on the full
catalogue, and the triggers' joins of their transition tables went quadratic on a
large update. Instead, inside the load's transaction:

- ``Changes.begin()`` notes the highest food id (foods above it are the load's new
  ones), creates the temporary table ``catalogue_load_old`` and, on PostgreSQL,
  disables the phrase triggers for this transaction (``ALTER TABLE ... DISABLE
  TRIGGER``: a SHARE ROW EXCLUSIVE lock, which lets reads go on and makes other writers
  wait for the load; rolled back with it);
- before a food is updated, ``snapshot()`` copies the columns its phrase rows, words
  and look-alike group derive from into ``catalogue_load_old``;
- ``regroup()`` recomputes the look-alike groups the load touched (the old and new
  keys of its foods) and nothing else;
- ``finish()`` deletes the old foods' phrase rows and words, writes the new ones of
  every touched food in one statement each, enables the triggers again and returns
  the touched foods' ids (to render).

Every other writer (the admin, factories, migrations) still goes through the triggers.
The SQL that derives phrase rows and words is the migration's own (0013).
"""

from __future__ import annotations

import importlib

from django.db import connection

from catalogue import variants

_M0013 = importlib.import_module("catalogue.migrations.0013_typicality_vocabulary")
PHRASE_TRIGGERS = (
    "catalogue_food_phrase_ai",
    "catalogue_food_phrase_ad",
    "catalogue_food_phrase_au",
    "catalogue_food_phrase_at",
)
_SNAPSHOT_COLUMNS = (
    "id, search_name, search_stems, search_heads, rank_quality, variant_key, variant_count, "
    "market_id, search_aliases, data_type"
)
_OLD_TABLE = (
    "CREATE TEMP TABLE catalogue_load_old (id bigint PRIMARY KEY, search_name text, "
    "search_stems text, search_heads text, rank_quality integer, variant_key text, "
    "variant_count integer, market_id text, search_aliases text, data_type text)"
)
# The foods a load touched: its new ones and those it updated or regrouped.
TOUCHED = "SELECT id FROM catalogue_food WHERE id > %s UNION SELECT id FROM catalogue_load_old"


class Changes:
    """The bookkeeping of one load (see the module docstring); use within its
    transaction."""

    def __init__(self) -> None:
        self.max_id = 0
        self.postgres = connection.vendor == "postgresql"

    def begin(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT COALESCE(MAX(id), 0) FROM catalogue_food")
            self.max_id = int(cursor.fetchone()[0])
            cursor.execute("DROP TABLE IF EXISTS catalogue_load_old")
            cursor.execute(_OLD_TABLE)
            if self.postgres:
                # ALTER TABLE refuses pending trigger events: Django's deferred foreign
                # key checks fire now instead of at the commit.
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                for name in PHRASE_TRIGGERS:
                    cursor.execute(f"ALTER TABLE catalogue_food DISABLE TRIGGER {name}")

    def snapshot(self, food_ids: list[int]) -> None:
        """Keeps the current phrase/word/group inputs of the foods ``food_ids`` (ids
        of foods that existed before the load; the first snapshot of a food wins)."""
        if food_ids:
            self.snapshot_query(", ".join(["%s"] * len(food_ids)), food_ids)

    def snapshot_query(self, ids: str, params: list[object]) -> None:
        """``snapshot`` of the ids ``ids`` lists or selects (SQL, with ``params``)."""
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO catalogue_load_old ({_SNAPSHOT_COLUMNS}) "  # noqa: S608
                f"SELECT {_SNAPSHOT_COLUMNS} FROM catalogue_food WHERE id IN ({ids}) "
                "ON CONFLICT (id) DO NOTHING",
                params,
            )

    def regroup(self) -> int:
        """Recomputes the look-alike groups of the touched foods' old and new keys;
        returns how many foods' counts changed."""
        if self.postgres:
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE catalogue_load_old")
        return variants.refresh(touched=self)

    def finish(self) -> list[int]:
        """Rewrites the touched foods' phrase rows and words (PostgreSQL), enables the
        triggers again; returns the touched food ids, in id order."""
        with connection.cursor() as cursor:
            if self.postgres:
                self._phrases(cursor)
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                for name in PHRASE_TRIGGERS:
                    cursor.execute(f"ALTER TABLE catalogue_food ENABLE TRIGGER {name}")
            cursor.execute(f"SELECT id FROM ({TOUCHED}) t ORDER BY id", [self.max_id])  # noqa: S608
            touched = [row[0] for row in cursor.fetchall()]
            cursor.execute("DROP TABLE catalogue_load_old")
        return touched

    def _phrases(self, cursor) -> None:  # type: ignore[no-untyped-def]
        m = _M0013
        touched = f"AND f.id IN ({TOUCHED})"
        cursor.execute(
            m.PHRASE_DELETE.replace("old_foods o", "catalogue_load_old o").format(
                join="", changed=""
            )
        )
        cursor.execute(
            f"INSERT INTO catalogue_food_phrase ({m.PHRASE_COLUMNS}) "  # noqa: S608
            + m.PHRASE_SELECT.format(t="f", source="catalogue_food")
            + " AND (f.id > %s OR f.id IN (SELECT id FROM catalogue_load_old))",
            [self.max_id],
        )
        cursor.execute(
            m.WORD_SUBTRACT.format(
                select=m.WORDS_OF.format(t="o", source="catalogue_load_old", where="")
            )
        )
        cursor.execute(
            m.WORD_UPSERT.format(
                select=m.WORDS_OF.format(t="f", source="catalogue_food", where=touched)
            ),
            [self.max_id],
        )
