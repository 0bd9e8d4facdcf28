"""Issue 27: combinations and named preparations are dishes.

``catalogue.ranking.typicality`` now also reads a head joining foods with "and" or
"with" ("Rum and cola", "Peas and carrots", "Chili with beans") and a few named
preparations ("Steak teriyaki", "Steak tartare", "Beef stroganoff") as dishes, so every
food's ``rank_quality`` is computed again and the foods whose value changed are written
(about 8,500 of the full catalogue's 400,000: 0013's fill). On PostgreSQL the phrase
index follows through its update trigger (0013); each written food's stored rendering
goes stale (its revision rises, 0011) and is rendered again when next read, or by
``manage.py render_catalogue``. Nothing else changes: no table, column or trigger.
The ranking is the one frozen in _frozen_ranking.py.
"""

from django.db import migrations

from catalogue.migrations import _frozen_ranking as ranking

_HEADLINES = (
    "energy_kcal", "protein_g", "fat_g", "saturated_fat_g", "carbohydrate_g", "sugars_g",
    "fiber_g", "cholesterol_mg", "sodium_mg", "potassium_mg", "calcium_mg", "iron_mg",
)  # fmt: skip
# Foods written per UPDATE: the phrase trigger joins a statement's transition tables
# (no index), which grows with the square of its rows (one UPDATE of 8,500 foods ran
# for over 10 minutes; chunks of this size take seconds in all).
CHUNK = 250


def _fill(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Writes ``rank_quality`` of the foods whose value changed, ``CHUNK`` at a time."""
    connection = schema_editor.connection
    with connection.cursor() as read:
        read.execute(
            f"SELECT id, name, data_type, rank_quality, {', '.join(_HEADLINES)} FROM catalogue_food"
        )
        changed = []
        while rows := read.fetchmany(5000):
            for food_id, name, data_type, old, *amounts in rows:
                new = ranking.quality(
                    data_type=data_type, name=name, headlines=dict(zip(_HEADLINES, amounts))
                )
                if new != old:
                    changed.append((new, food_id))
    with connection.cursor() as cursor:
        for start in range(0, len(changed), CHUNK):
            chunk = changed[start : start + CHUNK]
            if connection.vendor == "postgresql":
                cursor.execute(
                    "UPDATE catalogue_food f SET rank_quality = r.q FROM unnest(%s::int[], "
                    "%s::bigint[]) AS r(q, id) WHERE f.id = r.id",
                    ([q for q, _ in chunk], [i for _, i in chunk]),
                )
            else:
                cursor.executemany("UPDATE catalogue_food SET rank_quality = %s WHERE id = %s", chunk)


class Migration(migrations.Migration):
    dependencies = [("catalogue", "0013_typicality_vocabulary")]

    operations = [migrations.RunPython(_fill, migrations.RunPython.noop)]
