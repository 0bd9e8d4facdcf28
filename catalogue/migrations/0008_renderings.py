"""Pre-rendered food responses (catalogue/rendering.py) and the catalogue version.

``catalogue_catalogueversion`` holds one row whose ``n`` grows with every change to
``catalogue_food``, ``catalogue_nutrient`` or ``catalogue_category``: triggers bump it
in the changing transaction (PostgreSQL: once per statement, so a load's COPY or
``bulk_create`` costs one bump per batch, TRUNCATE included; SQLite: once per row). The
bump re-creates the row when a test's flush removed it. A ``catalogue_foodrendering``
row is served only while its ``version`` is the current ``n``.

The triggers are per table, not per column, so every column of ``catalogue_food``
(issue 12's ranking and look-alike columns, issue 17's local names and standard
deviations, any later one) bumps the version. On SQLite a later migration that remakes
one of these tables (an ALTER SQLite cannot do in place) drops its triggers: it must
run ``SQLITE_FORWARD`` again, as 0005/0006 do for the full-text triggers (_fts.py).
"""

from django.db import migrations, models

TABLES = ("catalogue_food", "catalogue_nutrient", "catalogue_category")
BUMP = (
    "INSERT INTO catalogue_catalogueversion (id, n) VALUES (1, 0) ON CONFLICT (id) DO NOTHING; "
    "UPDATE catalogue_catalogueversion SET n = n + 1 WHERE id = 1;"
)
SQLITE_BUMP = (
    "INSERT OR IGNORE INTO catalogue_catalogueversion (id, n) VALUES (1, 0); "
    "UPDATE catalogue_catalogueversion SET n = n + 1 WHERE id = 1;"
)
POSTGRES_FORWARD = [
    f"""
    CREATE FUNCTION catalogue_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        {BUMP}
        RETURN NULL;
    END $$
    """,
    *(
        f"CREATE TRIGGER {table}_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_bump()"
        for table in TABLES
    ),
    "INSERT INTO catalogue_catalogueversion (id, n) VALUES (1, 1) ON CONFLICT (id) DO NOTHING",
]
POSTGRES_BACKWARD = [
    *(f"DROP TRIGGER IF EXISTS {table}_version ON {table}" for table in TABLES),
    "DROP FUNCTION IF EXISTS catalogue_version_bump()",
]
SQLITE_FORWARD = [
    f"CREATE TRIGGER {table}_version_{event[0].lower()} AFTER {event} ON {table} BEGIN {SQLITE_BUMP} END"
    for table in TABLES
    for event in ("INSERT", "UPDATE", "DELETE")
] + ["INSERT OR IGNORE INTO catalogue_catalogueversion (id, n) VALUES (1, 1)"]
SQLITE_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {table}_version_{event[0].lower()}"
    for table in TABLES
    for event in ("INSERT", "UPDATE", "DELETE")
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("catalogue", "0007_ranking_indexes")]

    operations = [
        migrations.CreateModel(
            name="CatalogueVersion",
            fields=[
                (
                    "id",
                    models.PositiveSmallIntegerField(default=1, primary_key=True, serialize=False),
                ),
                ("n", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.CreateModel(
            name="FoodRendering",
            fields=[
                ("food_id", models.BigIntegerField(primary_key=True, serialize=False)),
                ("version", models.BigIntegerField()),
                ("etag", models.CharField(max_length=40)),
                ("record", models.BinaryField()),
                ("summary", models.BinaryField()),
            ],
        ),
        migrations.RunPython(
            _run({"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD}),
            _run({"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD}),
        ),
    ]
