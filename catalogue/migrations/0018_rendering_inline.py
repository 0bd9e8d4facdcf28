"""Renderings stay in their row (issue 41.2): ``catalogue_foodrendering``'s
``toast_tuple_target`` at its maximum (8160 bytes) on PostgreSQL.

A record is stored zlib-compressed since this change (~1.8 KB on average, the summary
~0.9 KB beside it). With the default target (~2 KB) PostgreSQL would try pglz on such a
row (in vain: the record is compressed already) and then move the record out of line,
so every read would fetch it from the TOAST table through its index: a second lookup.
At 8160 a row is left as it is unless it fills a page. Only rows written from now on
are affected; ``render_catalogue`` (or the next load) writes them all. SQLite has no
such setting.
"""

from django.db import migrations

from catalogue.migrations._vendor import on_postgresql

FORWARD = "ALTER TABLE catalogue_foodrendering SET (toast_tuple_target = 8160)"
BACKWARD = "ALTER TABLE catalogue_foodrendering RESET (toast_tuple_target)"


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0017_fdc_release_fields"),
    ]

    operations = [
        migrations.RunPython(on_postgresql(FORWARD), on_postgresql(BACKWARD)),
    ]
