"""Per-food staleness of renderings (issue 28, point 2).

- ``catalogue_food.revision``: 0 when a food is inserted, one more on every update of
  it (a row trigger, whatever makes the change: a load, the
  admin, a factory). A ``catalogue_foodrendering`` row stores the revision it was
  rendered from and is served only while it equals the food's.
- ``catalogue_catalogueversion`` row 2: the *definitions* version, bumped by every
  update or delete of ``catalogue_nutrient`` or ``catalogue_category`` rows (what every
  rendering shows besides its food: nutrient names and units, category names). A
  rendering stores it as ``version``. Inserts do not bump it: a new nutrient or
  category is shown only by the foods written with it (a load writes the definitions
  first), which are rendered anyway. Row 1 still grows with every change to any of
  the three tables (0008's triggers): workers poll it to drop the bytes they keep in
  memory.

Row 2 starts at row 1's current value, so the renderings of the current catalogue stay
valid (every food's revision starts at 0, as do the stored renderings'): nothing is
rendered again by this migration.

On SQLite the revision trigger belongs to ``catalogue_food``: a later migration that
remakes that table must run ``SQLITE_REVISION`` again (as for _fts.py and 0008's).
"""

from django.db import migrations, models

DEFINITION_TABLES = ("catalogue_nutrient", "catalogue_category")
BUMP_DEFINITIONS = (
    "INSERT INTO catalogue_catalogueversion (id, n) VALUES (2, 0) ON CONFLICT (id) DO NOTHING; "
    "UPDATE catalogue_catalogueversion SET n = n + 1 WHERE id = 2;"
)
SQLITE_BUMP_DEFINITIONS = (
    "INSERT OR IGNORE INTO catalogue_catalogueversion (id, n) VALUES (2, 0); "
    "UPDATE catalogue_catalogueversion SET n = n + 1 WHERE id = 2;"
)
START_DEFINITIONS = (
    "INSERT INTO catalogue_catalogueversion (id, n) "
    "SELECT 2, COALESCE((SELECT n FROM catalogue_catalogueversion WHERE id = 1), 1)"
)
POSTGRES_FORWARD = [
    "ALTER TABLE catalogue_food ADD COLUMN revision bigint NOT NULL DEFAULT 0",
    "ALTER TABLE catalogue_foodrendering ADD COLUMN revision bigint NOT NULL DEFAULT 0",
    """
    CREATE FUNCTION catalogue_food_revise() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        NEW.revision := OLD.revision + 1;
        RETURN NEW;
    END $$
    """,
    # Every update (the loader and the look-alike refresh only write changed rows; a
    # whole-row comparison cannot be a WHEN: the table has a generated column).
    "CREATE TRIGGER catalogue_food_revision BEFORE UPDATE ON catalogue_food FOR EACH ROW "
    "EXECUTE FUNCTION catalogue_food_revise()",
    f"""
    CREATE FUNCTION catalogue_definitions_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        {BUMP_DEFINITIONS}
        RETURN NULL;
    END $$
    """,
    *(
        f"CREATE TRIGGER {table}_definitions AFTER UPDATE OR DELETE OR TRUNCATE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION catalogue_definitions_bump()"
        for table in DEFINITION_TABLES
    ),
    START_DEFINITIONS + " ON CONFLICT (id) DO NOTHING",
]
POSTGRES_BACKWARD = [
    *(f"DROP TRIGGER IF EXISTS {table}_definitions ON {table}" for table in DEFINITION_TABLES),
    "DROP FUNCTION IF EXISTS catalogue_definitions_bump()",
    "DROP TRIGGER IF EXISTS catalogue_food_revision ON catalogue_food",
    "DROP FUNCTION IF EXISTS catalogue_food_revise()",
    "ALTER TABLE catalogue_foodrendering DROP COLUMN revision",
    "ALTER TABLE catalogue_food DROP COLUMN revision",
]
# SQLite has no comparison of whole rows: any update that does not raise the revision
# counts (the loader only rewrites changed rows; the trigger's own update raises it, so
# it does not fire again; a stale revision written back by ``save()`` is raised too).
SQLITE_REVISION = [
    "DROP TRIGGER IF EXISTS catalogue_food_revision",
    "CREATE TRIGGER catalogue_food_revision AFTER UPDATE ON catalogue_food "
    "WHEN new.revision <= old.revision BEGIN "
    "UPDATE catalogue_food SET revision = old.revision + 1 WHERE id = new.id; END",
]
SQLITE_FORWARD = [
    "ALTER TABLE catalogue_food ADD COLUMN revision bigint NOT NULL DEFAULT 0",
    "ALTER TABLE catalogue_foodrendering ADD COLUMN revision bigint NOT NULL DEFAULT 0",
    *SQLITE_REVISION,
    *(
        f"CREATE TRIGGER {table}_definitions_{event[0].lower()} AFTER {event} ON {table} "
        f"BEGIN {SQLITE_BUMP_DEFINITIONS} END"
        for table in DEFINITION_TABLES
        for event in ("UPDATE", "DELETE")
    ),
    "INSERT OR IGNORE INTO catalogue_catalogueversion (id, n) "
    "SELECT 2, COALESCE((SELECT n FROM catalogue_catalogueversion WHERE id = 1), 1)",
]


def _run(statements_by_vendor):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("catalogue", "0010_variant_key_macros")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField(
                    model_name="food",
                    name="revision",
                    field=models.BigIntegerField(default=0, editable=False),
                ),
                migrations.AddField(
                    model_name="foodrendering",
                    name="revision",
                    field=models.BigIntegerField(default=0),
                ),
            ],
            database_operations=[
                migrations.RunPython(
                    _run({"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD}),
                    _run({"postgresql": POSTGRES_BACKWARD}),
                ),
            ],
        ),
    ]
