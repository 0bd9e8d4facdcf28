"""Fills the ranking columns of 0005 and rebuilds the search structures around them.

Both backends: every food gets ``search_stems``, ``search_heads``, ``rank_quality`` and
``variant_key`` (catalogue.ranking.food_search_columns), then the look-alike groups
(catalogue.variants.refresh); both as frozen in _frozen_ranking.py.

PostgreSQL only:
- ``catalogue_food_phrase`` is rebuilt on stems: one row per shown food (``variant_count``
  not 0) and phrase key of its ``search_stems`` / ``search_heads``
  (catalogue.text.search_forms): each stem, each pair of adjacent stems (sorted, so
  "Milk, whole" holds ``whole milk``), each head key. ``tier`` 0: a head key (the name is
  about it), 1: the name starts with it, 2: elsewhere; i.e. ``4 - relevance`` of
  catalogue/search.py. ``quality`` is the food's ``rank_quality``, so the btree on
  (phrase, tier, quality, name_length, food_id) lists each key's foods in ranking order.
- ``catalogue_word``: the typo vocabulary, every distinct word (3+ characters, not only
  digits) of the foods' ``search_name`` with how many foods hold it, with a trigram
  (``pg_trgm``) GIN index for similar-word look-ups (catalogue/spelling.py).
Both are kept by statement triggers on ``catalogue_food`` (transition tables), like 0004.
This migration does not rebuild ``catalogue_food`` on SQLite (its FTS triggers survive).
"""

from django.db import migrations

from catalogue.migrations import _frozen_ranking as ranking

PHRASE_COLUMNS = "phrase, tier, quality, name_length, food_id, market_id"
PHRASE_SELECT = (
    "SELECT p.phrase, p.tier, coalesce({t}.rank_quality, 31), length({t}.search_name), "
    "{t}.id, {t}.market_id "
    "FROM {source} {t}, LATERAL catalogue_food_phrases({t}.search_stems, {t}.search_heads) p "
    "WHERE coalesce({t}.variant_count, 1) > 0"
)
# What decides a food's phrase rows: a change of any of these rewrites them (of the
# look-alike count, only whether the food is shown).
PHRASE_INPUTS = "search_name, search_stems, search_heads, rank_quality, market_id"
_SHOWN = "coalesce({t}.variant_count, 1) > 0"
_OLD = ", ".join([*(f"o.{c}" for c in PHRASE_INPUTS.split(", ")), _SHOWN.format(t="o")])
_NEW = ", ".join([*(f"n.{c}" for c in PHRASE_INPUTS.split(", ")), _SHOWN.format(t="n")])
CHANGED = f"({_OLD}) IS DISTINCT FROM ({_NEW})"
UPDATED = "JOIN new_foods n ON n.id = o.id"
# Deletes the phrase rows of the old foods (those ``changed``), by their whole index key.
PHRASE_DELETE = (
    "DELETE FROM catalogue_food_phrase t USING old_foods o {join}, "
    "LATERAL catalogue_food_phrases(o.search_stems, o.search_heads) p "
    "WHERE coalesce(o.variant_count, 1) > 0 AND t.phrase = p.phrase AND t.tier = p.tier "
    "AND t.quality = coalesce(o.rank_quality, 31) AND t.name_length = length(o.search_name) "
    "AND t.food_id = o.id {changed}"
)
RENAMED_OLD = (
    "AND EXISTS (SELECT 1 FROM new_foods n WHERE n.id = o.id "
    "AND n.search_name IS DISTINCT FROM o.search_name)"
)
RENAMED_NEW = (
    "AND EXISTS (SELECT 1 FROM old_foods o WHERE o.id = n.id "
    "AND o.search_name IS DISTINCT FROM n.search_name)"
)
WORDS_OF = (
    "SELECT w.word, count(*) AS foods FROM {source} {t}, "
    "LATERAL (SELECT DISTINCT unnest(string_to_array(btrim({t}.search_name), ' ')) AS word) w "
    "WHERE length(w.word) >= 3 AND w.word !~ '^[0-9]+$' {where} GROUP BY w.word"
)

POSTGRES_FORWARD = [
    "DROP TRIGGER IF EXISTS catalogue_food_phrase_at ON catalogue_food",
    "DROP TRIGGER IF EXISTS catalogue_food_phrase_au ON catalogue_food",
    "DROP TRIGGER IF EXISTS catalogue_food_phrase_ad ON catalogue_food",
    "DROP TRIGGER IF EXISTS catalogue_food_phrase_ai ON catalogue_food",
    "DROP TABLE IF EXISTS catalogue_food_phrase",
    "DROP TABLE IF EXISTS catalogue_word",
    "DROP FUNCTION IF EXISTS catalogue_food_phrases(text)",
    "DROP FUNCTION IF EXISTS catalogue_food_phrases(text, text)",
    "FILL",
    """
    CREATE FUNCTION catalogue_food_phrases(stems text, heads text)
    RETURNS TABLE (phrase text, tier smallint)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        WITH w AS (
            SELECT t.word, t.i
            FROM unnest(string_to_array(btrim(stems), ' ')) WITH ORDINALITY AS t(word, i)
        ), p AS (
            SELECT word AS phrase, CASE WHEN i = 1 THEN 1 ELSE 2 END AS tier FROM w
            UNION ALL
            SELECT least(a.word COLLATE "C", b.word COLLATE "C") || ' '
                   || greatest(a.word COLLATE "C", b.word COLLATE "C"),
                   CASE WHEN a.i = 1 THEN 1 ELSE 2 END
            FROM w a JOIN w b ON b.i = a.i + 1
            UNION ALL
            SELECT h, 0 FROM unnest(string_to_array(btrim(heads, '|'), '|')) AS h
        )
        SELECT phrase, min(tier)::smallint FROM p WHERE phrase <> '' GROUP BY phrase
    $$
    """,
    """
    CREATE TABLE catalogue_food_phrase (
        phrase text NOT NULL,
        tier smallint NOT NULL,
        quality smallint NOT NULL,
        name_length smallint NOT NULL,
        food_id bigint NOT NULL,
        market_id varchar(2) NOT NULL
    )
    """,
    f"""
    CREATE OR REPLACE FUNCTION catalogue_food_phrase_insert() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO catalogue_food_phrase ({PHRASE_COLUMNS})
        {PHRASE_SELECT.format(t="n", source="new_foods")};
        INSERT INTO catalogue_word (word, foods)
        {WORDS_OF.format(t="n", source="new_foods", where="")}
        ON CONFLICT (word) DO UPDATE SET foods = catalogue_word.foods + excluded.foods;
        RETURN NULL;
    END $$
    """,
    f"""
    CREATE OR REPLACE FUNCTION catalogue_food_phrase_delete() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        {PHRASE_DELETE.format(join="", changed="")};
        UPDATE catalogue_word c SET foods = c.foods - d.foods FROM (
            {WORDS_OF.format(t="o", source="old_foods", where="")}) d
        WHERE c.word = d.word;
        RETURN NULL;
    END $$
    """,
    f"""
    CREATE OR REPLACE FUNCTION catalogue_food_phrase_update() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        {PHRASE_DELETE.format(join=UPDATED, changed="AND " + CHANGED)};
        INSERT INTO catalogue_food_phrase ({PHRASE_COLUMNS})
        {PHRASE_SELECT.format(t="n", source="new_foods")}
        AND EXISTS (SELECT 1 FROM old_foods o WHERE o.id = n.id AND {CHANGED});
        UPDATE catalogue_word c SET foods = c.foods - d.foods FROM (
            {WORDS_OF.format(t="o", source="old_foods", where=RENAMED_OLD)}) d
        WHERE c.word = d.word;
        INSERT INTO catalogue_word (word, foods)
        {WORDS_OF.format(t="n", source="new_foods", where=RENAMED_NEW)}
        ON CONFLICT (word) DO UPDATE SET foods = catalogue_word.foods + excluded.foods;
        RETURN NULL;
    END $$
    """,
    """
    CREATE OR REPLACE FUNCTION catalogue_food_phrase_truncate() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        TRUNCATE catalogue_food_phrase, catalogue_word;
        RETURN NULL;
    END $$
    """,
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE TABLE catalogue_word (word text PRIMARY KEY, foods integer NOT NULL)",
    "INSERT INTO catalogue_word (word, foods) "
    + WORDS_OF.format(t="f", source="catalogue_food", where=""),
    # GIN, not GiST: a similarity (%) search on it took 2-7 ms where a GiST
    # nearest-neighbour scan took 40-50 ms on the full vocabulary (bench/RESULTS.md).
    "CREATE INDEX word_trgm_idx ON catalogue_word USING gin (word gin_trgm_ops)",
    f"INSERT INTO catalogue_food_phrase ({PHRASE_COLUMNS}) "
    + PHRASE_SELECT.format(t="f", source="catalogue_food"),
    # Not unique: the loader's deferred_indexes() drops and rebuilds it around a fresh
    # load. market_id is included so that a scan of one market stays index-only.
    "CREATE INDEX food_phrase_rank_idx ON catalogue_food_phrase "
    "(phrase, tier, quality, name_length, food_id) INCLUDE (market_id)",
    "CREATE TRIGGER catalogue_food_phrase_ai AFTER INSERT ON catalogue_food "
    "REFERENCING NEW TABLE AS new_foods FOR EACH STATEMENT "
    "EXECUTE FUNCTION catalogue_food_phrase_insert()",
    "CREATE TRIGGER catalogue_food_phrase_ad AFTER DELETE ON catalogue_food "
    "REFERENCING OLD TABLE AS old_foods FOR EACH STATEMENT "
    "EXECUTE FUNCTION catalogue_food_phrase_delete()",
    "CREATE TRIGGER catalogue_food_phrase_au AFTER UPDATE ON catalogue_food "
    "REFERENCING OLD TABLE AS old_foods NEW TABLE AS new_foods FOR EACH STATEMENT "
    "EXECUTE FUNCTION catalogue_food_phrase_update()",
    "CREATE TRIGGER catalogue_food_phrase_at AFTER TRUNCATE ON catalogue_food "
    "FOR EACH STATEMENT EXECUTE FUNCTION catalogue_food_phrase_truncate()",
    "ANALYZE catalogue_food",
    "ANALYZE catalogue_food_phrase",
    "ANALYZE catalogue_word",
]
SQLITE_FORWARD = ["FILL"]

_HEADLINES = (
    "energy_kcal", "protein_g", "fat_g", "saturated_fat_g", "carbohydrate_g", "sugars_g",
    "fiber_g", "cholesterol_mg", "sodium_mg", "potassium_mg", "calcium_mg", "iron_mg",
)  # fmt: skip
_FILLED = ("search_stems", "search_heads", "rank_quality", "variant_key")


def _fill(connection) -> None:  # type: ignore[no-untyped-def]
    """Writes the ranking columns of every food (each shown on its own), then the
    look-alike groups (which then only rewrite the foods of groups of two or more)."""
    def rows():  # type: ignore[no-untyped-def]
        with connection.cursor() as read:
            read.execute(f"SELECT id, name, data_type, {', '.join(_HEADLINES)} FROM catalogue_food")
            while chunk := read.fetchmany(5000):
                for food_id, name, data_type, *amounts in chunk:
                    columns = ranking.food_search_columns(
                        name=name, data_type=data_type, headlines=dict(zip(_HEADLINES, amounts))
                    )
                    yield (food_id, *(columns[c] for c in _FILLED))

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "CREATE TEMP TABLE ranking_fill (id bigint, search_stems text, "
                "search_heads text, rank_quality smallint, variant_key text) ON COMMIT DROP"
            )
            filled = list(rows())  # read before COPY: it holds the connection
            with cursor.cursor.copy("COPY ranking_fill FROM STDIN") as copy:
                for row in filled:
                    copy.write_row(row)
            cursor.execute(
                "UPDATE catalogue_food f SET search_stems = r.search_stems, "
                "search_heads = r.search_heads, rank_quality = r.rank_quality, "
                "variant_key = r.variant_key, variant_count = 1 "
                "FROM ranking_fill r WHERE f.id = r.id"
            )
        else:
            cursor.executemany(
                "UPDATE catalogue_food SET search_stems = %s, search_heads = %s, "
                "rank_quality = %s, variant_key = %s, variant_count = 1 WHERE id = %s",
                [(*row[1:], row[0]) for row in rows()],
            )
    ranking.refresh(connection)


def _run(statements_by_vendor):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            if sql == "FILL":
                _fill(schema_editor.connection)
            else:
                schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("catalogue", "0006_ranking")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD}),
            migrations.RunPython.noop,
        ),
    ]
