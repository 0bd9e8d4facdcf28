"""Issue 27: the typical food first, and a spelling vocabulary per market.

Both backends: every food's ``rank_quality`` is computed again (catalogue.ranking.quality
now also weighs dish words, and a basic-form marker counts only where no dish word
precedes it; as frozen in _frozen_ranking.py); only the foods whose value changed are
written.

PostgreSQL only, rebuilt from scratch like 0007 (same triggers, new definitions):
- ``catalogue_food_phrase``: ``tier`` is the match's place (0 head, 1 start, 2 elsewhere)
  + 3 if the food is a dish (``rank_quality`` bit 4: a dish word, catalogue.ranking)
  + 6 if it is branded, so every phrase match of a reference (or other lab) food ranks
  before every branded one (a reference food holding the query as whole words is never
  beaten by a label equal to the query), and the food itself before dishes named after
  it ("Squash, summer, zucchini" before "Zucchini, pickled"); docs/catalogue.md,
  "Relevance"; relevance = 13 - tier in catalogue/search.py.
- ``catalogue_word``: the typo vocabulary per market, ``(market_id, word)``, with how many
  foods hold the word (``foods``) and how many of them are not branded (``reference``),
  made of the words of ``search_name`` *and* ``search_aliases`` (local names); a trigram
  GIN index for similar-word look-ups and ``text_pattern_ops`` btrees for completions
  (GET /v1/suggest: every word, and the words of 5+ reference foods).
Both are kept by statement triggers on ``catalogue_food`` (transition tables).
"""

from django.db import migrations

from catalogue.migrations import _frozen_ranking as ranking

PHRASE_COLUMNS = "phrase, tier, quality, name_length, food_id, market_id"
_PHRASES = (
    "catalogue_food_phrases({t}.search_stems, {t}.search_heads, {t}.data_type = 'branded', "
    "(coalesce({t}.rank_quality, 63) & 4) <> 0)"
)
PHRASE_SELECT = (
    "SELECT p.phrase, p.tier, coalesce({t}.rank_quality, 63), length({t}.search_name), "
    "{t}.id, {t}.market_id "
    "FROM {source} {t}, LATERAL " + _PHRASES + " p "
    "WHERE coalesce({t}.variant_count, 1) > 0"
)
PHRASE_INPUTS = "search_name, search_stems, search_heads, rank_quality, market_id, data_type"
_SHOWN = "coalesce({t}.variant_count, 1) > 0"
_OLD = ", ".join([*(f"o.{c}" for c in PHRASE_INPUTS.split(", ")), _SHOWN.format(t="o")])
_NEW = ", ".join([*(f"n.{c}" for c in PHRASE_INPUTS.split(", ")), _SHOWN.format(t="n")])
CHANGED = f"({_OLD}) IS DISTINCT FROM ({_NEW})"
UPDATED = "JOIN new_foods n ON n.id = o.id"
PHRASE_DELETE = (
    "DELETE FROM catalogue_food_phrase t USING old_foods o {join}, "
    "LATERAL " + _PHRASES.format(t="o") + " p "
    "WHERE coalesce(o.variant_count, 1) > 0 AND t.phrase = p.phrase AND t.tier = p.tier "
    "AND t.quality = coalesce(o.rank_quality, 63) AND t.name_length = length(o.search_name) "
    "AND t.food_id = o.id {changed}"
)
# What decides a food's words: its names, its market and whether it is branded.
_WORD_INPUTS = ("search_name", "search_aliases", "market_id", "data_type")
_WORDS_CHANGED = " OR ".join(f"n.{c} IS DISTINCT FROM o.{c}" for c in _WORD_INPUTS)
RENAMED_OLD = (
    f"AND EXISTS (SELECT 1 FROM new_foods n WHERE n.id = o.id AND ({_WORDS_CHANGED}))"
)
RENAMED_NEW = (
    f"AND EXISTS (SELECT 1 FROM old_foods o WHERE o.id = n.id AND ({_WORDS_CHANGED}))"
)
WORDS_OF = (
    "SELECT {t}.market_id, w.word, count(*) AS foods, "
    "count(*) FILTER (WHERE {t}.data_type <> 'branded') AS reference "
    "FROM {source} {t}, LATERAL (SELECT DISTINCT unnest(string_to_array(btrim("
    "{t}.search_name || ' ' || replace({t}.search_aliases, '|', ' ')), ' ')) AS word) w "
    "WHERE length(w.word) >= 3 AND w.word !~ '^[0-9]+$' {where} GROUP BY {t}.market_id, w.word"
)
WORD_UPSERT = (
    "INSERT INTO catalogue_word (market_id, word, foods, reference) {select} "
    "ON CONFLICT (market_id, word) DO UPDATE SET foods = catalogue_word.foods + excluded.foods, "
    "reference = catalogue_word.reference + excluded.reference"
)
WORD_SUBTRACT = (
    "UPDATE catalogue_word c SET foods = c.foods - d.foods, reference = c.reference - d.reference "
    "FROM ({select}) d WHERE c.market_id = d.market_id AND c.word = d.word"
)

POSTGRES_FORWARD = [
    "DROP TRIGGER IF EXISTS catalogue_food_phrase_at ON catalogue_food",
    "DROP TRIGGER IF EXISTS catalogue_food_phrase_au ON catalogue_food",
    "DROP TRIGGER IF EXISTS catalogue_food_phrase_ad ON catalogue_food",
    "DROP TRIGGER IF EXISTS catalogue_food_phrase_ai ON catalogue_food",
    "DROP TABLE IF EXISTS catalogue_food_phrase",
    "DROP TABLE IF EXISTS catalogue_word",
    "DROP FUNCTION IF EXISTS catalogue_food_phrases(text, text)",
    "DROP FUNCTION IF EXISTS catalogue_food_phrases(text, text, boolean, boolean)",
    "FILL",
    """
    CREATE FUNCTION catalogue_food_phrases(stems text, heads text, branded boolean,
                                           dish boolean)
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
        SELECT phrase, (min(tier) + CASE WHEN dish THEN 3 ELSE 0 END
                        + CASE WHEN branded THEN 6 ELSE 0 END)::smallint
        FROM p WHERE phrase <> '' GROUP BY phrase
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
        {WORD_UPSERT.format(select=WORDS_OF.format(t="n", source="new_foods", where=""))};
        RETURN NULL;
    END $$
    """,
    f"""
    CREATE OR REPLACE FUNCTION catalogue_food_phrase_delete() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        {PHRASE_DELETE.format(join="", changed="")};
        {WORD_SUBTRACT.format(select=WORDS_OF.format(t="o", source="old_foods", where=""))};
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
        {WORD_SUBTRACT.format(select=WORDS_OF.format(t="o", source="old_foods", where=RENAMED_OLD))};
        {WORD_UPSERT.format(select=WORDS_OF.format(t="n", source="new_foods", where=RENAMED_NEW))};
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
    "CREATE TABLE catalogue_word (market_id varchar(2) NOT NULL, word text NOT NULL, "
    "foods integer NOT NULL, reference integer NOT NULL, PRIMARY KEY (market_id, word))",
    WORD_UPSERT.format(select=WORDS_OF.format(t="f", source="catalogue_food", where="")),
    "CREATE INDEX word_trgm_idx ON catalogue_word USING gin (word gin_trgm_ops)",
    "CREATE INDEX word_prefix_idx ON catalogue_word (market_id, word text_pattern_ops)",
    # The words of 5+ reference foods: what a suggestion for one or two letters reads
    # (catalogue/suggest.py), a few thousand words instead of every word with the prefix.
    "CREATE INDEX word_common_prefix_idx ON catalogue_word (market_id, word text_pattern_ops) "
    "WHERE reference >= 5",
    f"INSERT INTO catalogue_food_phrase ({PHRASE_COLUMNS}) "
    + PHRASE_SELECT.format(t="f", source="catalogue_food"),
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


def _fill(connection) -> None:  # type: ignore[no-untyped-def]
    """Writes ``rank_quality`` of the foods whose value changed."""
    with connection.cursor() as read:
        read.execute(
            f"SELECT id, name, data_type, rank_quality, {', '.join(_HEADLINES)} FROM catalogue_food"
        )
        changed = []
        while chunk := read.fetchmany(5000):
            for food_id, name, data_type, old, *amounts in chunk:
                new = ranking.quality(
                    data_type=data_type, name=name, headlines=dict(zip(_HEADLINES, amounts))
                )
                if new != old:
                    changed.append((food_id, new))
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "CREATE TEMP TABLE quality_fill (id bigint, rank_quality smallint) ON COMMIT DROP"
            )
            with cursor.cursor.copy("COPY quality_fill FROM STDIN") as copy:
                for row in changed:
                    copy.write_row(row)
            cursor.execute(
                "UPDATE catalogue_food f SET rank_quality = r.rank_quality "
                "FROM quality_fill r WHERE f.id = r.id"
            )
        else:
            cursor.executemany(
                "UPDATE catalogue_food SET rank_quality = %s WHERE id = %s",
                [(q, food_id) for food_id, q in changed],
            )


def _run(statements_by_vendor):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            if sql == "FILL":
                _fill(schema_editor.connection)
            else:
                schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("catalogue", "0012_source_loads")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD}),
            migrations.RunPython.noop,
        ),
    ]
