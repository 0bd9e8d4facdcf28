"""Issue 27: the IFCT's "ripe" and "raw" read in Indian English.

``catalogue.ranking.typicality`` now reads an IFCT food's "ripe" as marking its basic
form, and its "raw" as not marking it in the IFCT's vegetable groups, where it names an
unripe fruit ("Mango, green, raw", "Papaya, raw"). It reads the food's category for
that, so the IFCT foods' ``rank_quality`` is computed again from name, data type,
category and headline nutrients, and the foods whose value changed are written: 19 of
the IFCT's 542 (no other source's food changes). On PostgreSQL the phrase index follows
through its update trigger (0013). ``catalogue/ranking.py`` is one of the modules the
rendering format is the fingerprint of (``catalogue.delivery.rendering.FORMAT_MODULES``), so after
this deploy every stored rendering is outdated, not only these 19: each food is rendered
again on its first read, or all at once by ``manage.py render_catalogue`` (docs/
operations.md). Nothing else changes: no table, column or trigger. The ranking is the one
frozen in _frozen_ranking.py.
"""

from django.db import migrations

from catalogue.migrations import _frozen_ranking as ranking

_HEADLINES = (
    "energy_kcal", "protein_g", "fat_g", "saturated_fat_g", "carbohydrate_g", "sugars_g",
    "fiber_g", "cholesterol_mg", "sodium_mg", "potassium_mg", "calcium_mg", "iron_mg",
)  # fmt: skip
_COLUMNS = ", ".join(f"f.{column}" for column in _HEADLINES)


def _fill(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Writes ``rank_quality`` of the IFCT foods whose value changed."""
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT f.id, f.name, f.data_type, COALESCE(c.name, ''), f.rank_quality, "
            f"{_COLUMNS} FROM catalogue_food f LEFT JOIN catalogue_category c "
            "ON c.id = f.category_id WHERE f.data_type = %s",
            [ranking.IFCT],
        )
        changed = []
        for food_id, name, data_type, category, old, *amounts in cursor.fetchall():
            new = ranking.quality(
                data_type=data_type,
                name=name,
                headlines=dict(zip(_HEADLINES, amounts)),
                category=category,
            )
            if new != old:
                changed.append((new, food_id))
        # A few dozen rows at most: one statement each keeps the phrase trigger's join small.
        cursor.executemany("UPDATE catalogue_food SET rank_quality = %s WHERE id = %s", changed)


class Migration(migrations.Migration):
    dependencies = [("catalogue", "0014_combination_dishes")]

    operations = [migrations.RunPython(_fill, migrations.RunPython.noop)]
