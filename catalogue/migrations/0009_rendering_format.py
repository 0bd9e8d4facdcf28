"""Renderings carry the fingerprint of the code that made them
(catalogue.rendering.render_format): a deploy that changes how a food is rendered
serves none of the bytes the code before it stored. Rows stored before this migration
have an empty format, so they are rendered again (by their first read, or by
``manage.py render_catalogue``)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("catalogue", "0008_renderings")]

    operations = [
        migrations.AddField(
            model_name="foodrendering",
            name="format",
            field=models.CharField(default="", max_length=16),
        ),
    ]
