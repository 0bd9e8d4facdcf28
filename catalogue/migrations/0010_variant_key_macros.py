"""Look-alike keys without energy (catalogue.ranking.variant_key): copies of one branded
product, one without its energy or with a label's rounding of it, now form one group.
Every food's ``variant_key`` is computed again, then the groups
(``catalogue.variants.refresh``). On the full catalogue about 10,000 more foods are
hidden behind a group's shown food. The renderings are then stale (the catalogue
number moved); reads render again on the spot, or ``manage.py render_catalogue``
renders every food at once. Reversing keeps the new keys (the old code groups by them
just the same). Both functions as frozen in _frozen_ranking.py."""

from django.db import migrations

from catalogue.migrations import _frozen_ranking as ranking

_AMOUNTS = ("protein_g", "fat_g", "carbohydrate_g")


def _keys(connection):  # type: ignore[no-untyped-def]
    with connection.cursor() as read:
        read.execute(
            f"SELECT id, search_name, data_type, {', '.join(_AMOUNTS)}, variant_key "
            "FROM catalogue_food WHERE search_name IS NOT NULL"
        )
        rows = read.fetchall()
    for food_id, search_name, data_type, *amounts, old in rows:
        key = ranking.variant_key(
            search_name=search_name, data_type=data_type, headlines=dict(zip(_AMOUNTS, amounts))
        )
        if key != old:
            yield food_id, key


def rekey(apps, schema_editor):  # type: ignore[no-untyped-def]
    connection = schema_editor.connection
    changed = list(_keys(connection))
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "CREATE TEMP TABLE variant_rekey (id bigint, variant_key text) ON COMMIT DROP"
            )
            with cursor.cursor.copy("COPY variant_rekey FROM STDIN") as copy:
                for row in changed:
                    copy.write_row(row)
            cursor.execute(
                "UPDATE catalogue_food f SET variant_key = r.variant_key "
                "FROM variant_rekey r WHERE f.id = r.id"
            )
        else:
            cursor.executemany(
                "UPDATE catalogue_food SET variant_key = %s WHERE id = %s",
                [(key, food_id) for food_id, key in changed],
            )
    ranking.refresh(connection)


class Migration(migrations.Migration):
    dependencies = [("catalogue", "0009_rendering_format")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
