"""The full-text index over Food.search_name, one per backend.

PostgreSQL: a stored generated ``tsvector`` column (english stemming) with a GIN index.
SQLite: an external-content FTS5 table (porter stemming) kept in step by triggers.
Neither is a model field: the search backends (catalogue/search.py) query them directly.
"""

from django.db import migrations

POSTGRES_FORWARD = [
    "ALTER TABLE catalogue_food ADD COLUMN search_vector tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english'::regconfig, search_name)) STORED",
    "CREATE INDEX food_search_gin ON catalogue_food USING gin (search_vector)",
]
POSTGRES_BACKWARD = [
    "DROP INDEX IF EXISTS food_search_gin",
    "ALTER TABLE catalogue_food DROP COLUMN IF EXISTS search_vector",
]
SQLITE_FORWARD = [
    "CREATE VIRTUAL TABLE catalogue_food_fts USING fts5(search_name, content='catalogue_food', "
    "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE TRIGGER catalogue_food_fts_ai AFTER INSERT ON catalogue_food BEGIN "
    "INSERT INTO catalogue_food_fts(rowid, search_name) VALUES (new.id, new.search_name); END",
    "CREATE TRIGGER catalogue_food_fts_ad AFTER DELETE ON catalogue_food BEGIN "
    "INSERT INTO catalogue_food_fts(catalogue_food_fts, rowid, search_name) "
    "VALUES ('delete', old.id, old.search_name); END",
    "CREATE TRIGGER catalogue_food_fts_au AFTER UPDATE OF search_name ON catalogue_food BEGIN "
    "INSERT INTO catalogue_food_fts(catalogue_food_fts, rowid, search_name) "
    "VALUES ('delete', old.id, old.search_name); "
    "INSERT INTO catalogue_food_fts(rowid, search_name) VALUES (new.id, new.search_name); END",
    "INSERT INTO catalogue_food_fts(catalogue_food_fts) VALUES ('rebuild')",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS catalogue_food_fts_au",
    "DROP TRIGGER IF EXISTS catalogue_food_fts_ad",
    "DROP TRIGGER IF EXISTS catalogue_food_fts_ai",
    "DROP TABLE IF EXISTS catalogue_food_fts",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("catalogue", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD}),
            _run({"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD}),
        ),
    ]
