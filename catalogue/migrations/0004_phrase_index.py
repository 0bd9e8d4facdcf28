"""PostgreSQL only: ``catalogue_food_phrase``, the ranked phrase index of food names.

One row per food and distinct phrase of its ``search_name``: every word, and every two
adjacent words. ``tier`` is where the phrase stands (0: it is the whole name; 1: the
name starts with it; 2: elsewhere), i.e. ``4 - relevance`` of catalogue/search.py for a
query of that phrase. The btree on (phrase, tier, name_length, food_id) therefore holds
each one- or two-word query's best matches already in relevance order, and an
index-only scan reads a page of them without ranking all matches (bench/RESULTS.md).

Kept in step with ``catalogue_food`` by statement triggers (transition tables), so the
loader's COPY, ``bulk_create``, updates, deletes and TRUNCATE all maintain it. Not a
model: catalogue/search.py queries it directly. SQLite has no such table (its searches
rank every FTS5 match), and this migration changes nothing there; in particular it
does not rebuild ``catalogue_food``, which would drop the FTS triggers of 0002.
"""

from django.db import migrations

POSTGRES_FORWARD = [
    # The phrases of a search_name (" peanut butter smooth ") with their best tier.
    """
    CREATE FUNCTION catalogue_food_phrases(search_name text)
    RETURNS TABLE (phrase text, tier smallint)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        WITH w AS (
            SELECT t.word, t.i, count(*) OVER () AS n
            FROM unnest(string_to_array(btrim(search_name), ' ')) WITH ORDINALITY AS t(word, i)
        ), p AS (
            SELECT word AS phrase, CASE WHEN i > 1 THEN 2 WHEN n = 1 THEN 0 ELSE 1 END AS tier
            FROM w
            UNION ALL
            SELECT a.word || ' ' || b.word,
                   CASE WHEN a.i > 1 THEN 2 WHEN a.n = 2 THEN 0 ELSE 1 END
            FROM w a JOIN w b ON b.i = a.i + 1
        )
        SELECT phrase, min(tier)::smallint FROM p WHERE phrase <> '' GROUP BY phrase
    $$
    """,
    """
    CREATE TABLE catalogue_food_phrase (
        phrase text NOT NULL,
        tier smallint NOT NULL,
        name_length smallint NOT NULL,
        food_id bigint NOT NULL,
        market_id varchar(2) NOT NULL
    )
    """,
    """
    CREATE FUNCTION catalogue_food_phrase_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO catalogue_food_phrase (phrase, tier, name_length, food_id, market_id)
        SELECT p.phrase, p.tier, length(n.search_name), n.id, n.market_id
        FROM new_foods n, LATERAL catalogue_food_phrases(n.search_name) p;
        RETURN NULL;
    END $$
    """,
    """
    CREATE FUNCTION catalogue_food_phrase_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM catalogue_food_phrase t
        USING old_foods o, LATERAL catalogue_food_phrases(o.search_name) p
        WHERE t.phrase = p.phrase AND t.tier = p.tier
          AND t.name_length = length(o.search_name) AND t.food_id = o.id;
        RETURN NULL;
    END $$
    """,
    """
    CREATE FUNCTION catalogue_food_phrase_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM catalogue_food_phrase t
        USING old_foods o JOIN new_foods n ON n.id = o.id,
              LATERAL catalogue_food_phrases(o.search_name) p
        WHERE (o.search_name, o.market_id) IS DISTINCT FROM (n.search_name, n.market_id)
          AND t.phrase = p.phrase AND t.tier = p.tier
          AND t.name_length = length(o.search_name) AND t.food_id = o.id;
        INSERT INTO catalogue_food_phrase (phrase, tier, name_length, food_id, market_id)
        SELECT p.phrase, p.tier, length(n.search_name), n.id, n.market_id
        FROM old_foods o JOIN new_foods n ON n.id = o.id,
             LATERAL catalogue_food_phrases(n.search_name) p
        WHERE (o.search_name, o.market_id) IS DISTINCT FROM (n.search_name, n.market_id);
        RETURN NULL;
    END $$
    """,
    """
    CREATE FUNCTION catalogue_food_phrase_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        TRUNCATE catalogue_food_phrase;
        RETURN NULL;
    END $$
    """,
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
    # The foods already loaded, then the index (faster built once over all rows).
    "INSERT INTO catalogue_food_phrase (phrase, tier, name_length, food_id, market_id) "
    "SELECT p.phrase, p.tier, length(f.search_name), f.id, f.market_id "
    "FROM catalogue_food f, LATERAL catalogue_food_phrases(f.search_name) p",
    # Not unique: the loader's deferred_indexes() drops and rebuilds it around a fresh
    # load. market_id is included so that a scan of one market stays index-only.
    "CREATE INDEX food_phrase_rank_idx ON catalogue_food_phrase "
    "(phrase, tier, name_length, food_id) INCLUDE (market_id)",
    "ANALYZE catalogue_food_phrase",
]
POSTGRES_BACKWARD = [
    "DROP TRIGGER IF EXISTS catalogue_food_phrase_at ON catalogue_food",
    "DROP TRIGGER IF EXISTS catalogue_food_phrase_au ON catalogue_food",
    "DROP TRIGGER IF EXISTS catalogue_food_phrase_ad ON catalogue_food",
    "DROP TRIGGER IF EXISTS catalogue_food_phrase_ai ON catalogue_food",
    "DROP TABLE IF EXISTS catalogue_food_phrase",
    "DROP FUNCTION IF EXISTS catalogue_food_phrase_truncate()",
    "DROP FUNCTION IF EXISTS catalogue_food_phrase_update()",
    "DROP FUNCTION IF EXISTS catalogue_food_phrase_delete()",
    "DROP FUNCTION IF EXISTS catalogue_food_phrase_insert()",
    "DROP FUNCTION IF EXISTS catalogue_food_phrases(text)",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("catalogue", "0003_category_long_names")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES_FORWARD}),
            _run({"postgresql": POSTGRES_BACKWARD}),
        ),
    ]
