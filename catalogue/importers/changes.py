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
The SQL below derives phrase rows and words as those triggers do (migration 0013's
statements, on ``catalogue_load_old`` and the touched foods instead of the transition
tables). It is this module's own copy: a migration is frozen once applied, while this
SQL follows the schema, so a migration that redefines the triggers changes it here too.
tests/catalogue/importers/test_load_changes.py checks that a load leaves the phrase rows and
words the triggers would.
"""

from __future__ import annotations

from django.db import connection

from catalogue.search import variants

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

# The phrase rows of the foods {t} of {source} (catalogue_food_phrases: migration 0013).
_PHRASES = (
    "catalogue_food_phrases({t}.search_stems, {t}.search_heads, {t}.data_type = 'branded', "
    "(coalesce({t}.rank_quality, 63) & 4) <> 0)"
)
# The old foods' phrase rows, as they were written (their keys, quality and length).
_PHRASE_DELETE = (
    "DELETE FROM catalogue_food_phrase t USING catalogue_load_old o, "  # noqa: S608
    "LATERAL " + _PHRASES.format(t="o") + " p "
    "WHERE coalesce(o.variant_count, 1) > 0 AND t.phrase = p.phrase AND t.tier = p.tier "
    "AND t.quality = coalesce(o.rank_quality, 63) AND t.name_length = length(o.search_name) "
    "AND t.food_id = o.id"
)
# The touched foods' phrase rows now: the new foods (id > %s) and the snapshot ones.
_PHRASE_INSERT = (
    "INSERT INTO catalogue_food_phrase (phrase, tier, quality, name_length, food_id, "  # noqa: S608
    "market_id) "
    "SELECT p.phrase, p.tier, coalesce(f.rank_quality, 63), length(f.search_name), "
    "f.id, f.market_id "
    "FROM catalogue_food f, LATERAL " + _PHRASES.format(t="f") + " p "
    "WHERE coalesce(f.variant_count, 1) > 0 "
    "AND (f.id > %s OR f.id IN (SELECT id FROM catalogue_load_old))"
)
# The words of the foods {t} of {source}, per market: how many foods hold each and how
# many of them are not branded.
_WORDS_OF = (
    "SELECT {t}.market_id, w.word, count(*) AS foods, "
    "count(*) FILTER (WHERE {t}.data_type <> 'branded') AS reference "
    "FROM {source} {t}, LATERAL (SELECT DISTINCT unnest(string_to_array(btrim("
    "{t}.search_name || ' ' || replace({t}.search_aliases, '|', ' ')), ' ')) AS word) w "
    "WHERE length(w.word) >= 3 AND w.word !~ '^[0-9]+$' {where} GROUP BY {t}.market_id, w.word"
)
# The old foods' words taken off the vocabulary, the touched foods' words added.
_WORD_SUBTRACT = (
    "UPDATE catalogue_word c SET foods = c.foods - d.foods, reference = c.reference - d.reference "  # noqa: S608
    "FROM (" + _WORDS_OF.format(t="o", source="catalogue_load_old", where="") + ") d "
    "WHERE c.market_id = d.market_id AND c.word = d.word"
)
_WORD_UPSERT = (
    "INSERT INTO catalogue_word (market_id, word, foods, reference) "
    + _WORDS_OF.format(t="f", source="catalogue_food", where=f"AND f.id IN ({TOUCHED})")
    + " ON CONFLICT (market_id, word) DO UPDATE SET "
    "foods = catalogue_word.foods + excluded.foods, "
    "reference = catalogue_word.reference + excluded.reference"
)


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
        """The old phrase rows and words of the snapshot foods out, the touched foods'
        in (what the triggers, disabled for the load, would have done)."""
        cursor.execute(_PHRASE_DELETE)
        cursor.execute(_PHRASE_INSERT, [self.max_id])
        cursor.execute(_WORD_SUBTRACT)
        cursor.execute(_WORD_UPSERT, [self.max_id])
