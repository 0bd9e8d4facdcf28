"""PostgreSQL only: a full-text index of the reference foods (SR28, Foundation, FNDDS,
IFCT), the ~16,000 rows of the 410,000 that are not branded.

POST /v1/analysis searches a line among reference foods only when no reference food
came first (catalogue.analysis.selectors: ``REFERENCE``, an SR28 lender, a narrowed
line's words). With ``food_search_gin`` alone such a search intersected the word's
matches with every reference row's id (a bitmap AND over ~16,700 rows of
``food_data_type_idx``, 1-3 ms a search); this partial GIN index holds those rows
only (0.5 s to build on the full catalogue; branded rows never write it). A query
whose ``data_type IN (...)`` lists some of these types uses it (PostgreSQL proves the
index's predicate from the query's). SQLite: nothing (its FTS5 table has no partial
form; the embedded catalogue is small).
"""

from django.db import migrations

from catalogue.migrations._vendor import on_postgresql

INDEX = (
    "CREATE INDEX IF NOT EXISTS food_search_reference_gin ON catalogue_food "
    "USING gin (search_vector) "
    "WHERE data_type IN ('sr_legacy', 'foundation', 'survey', 'ifct2017')"
)
DROP = "DROP INDEX IF EXISTS food_search_reference_gin"


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0015_ifct_ripe_and_raw"),
    ]

    operations = [migrations.RunPython(on_postgresql(INDEX), on_postgresql(DROP))]
