"""The catalogue as a load leaves it, by public ids (issue 28; shared by the load tests
of tests/catalogue/importers/)."""

from __future__ import annotations

import importlib
from pathlib import Path

from django.db import connection

from catalogue.importers.load import catalogue_load
from catalogue.models import Category, Food, FoodRendering, Market, Nutrient

DATA = Path(__file__).parents[1] / "catalogue" / "data"
SOURCES = {
    "sr28": DATA / "judged" / "sr28",
    "fdc": DATA / "lookalikes" / "fooddata.csv",
    "ifct": DATA / "ifct" / "compositions.csv",
}
_M0013 = importlib.import_module("catalogue.migrations.0013_typicality_vocabulary")


def catalogue_state() -> dict[str, object]:
    """The catalogue by public ids: foods' columns, renderings, groups, phrase rows and
    words (PostgreSQL), comparable across loads whose row ids differ."""
    skip = {"id", "revision", "category"}
    foods = {
        f["public_id"]: {k: v for k, v in f.items() if k not in skip}
        for f in Food.objects.values(*[f.attname for f in Food._meta.concrete_fields])
    }
    public = dict(Food.objects.values_list("id", "public_id"))
    categories = dict(Category.objects.values_list("id", "slug"))
    for food in Food.objects.values("public_id", "category_id"):
        foods[food["public_id"]]["category_id"] = categories.get(food["category_id"])
    renderings = {
        public[r.food_id]: (r.body(), bytes(r.summary), r.etag) for r in FoodRendering.objects.all()
    }
    state: dict[str, object] = {"foods": foods, "renderings": renderings}
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT phrase, tier, quality, name_length, food_id, market_id "
                "FROM catalogue_food_phrase"
            )
            state["phrases"] = sorted((*r[:4], public[r[4]], r[5]) for r in cursor.fetchall())
            cursor.execute(
                "SELECT market_id, word, foods, reference FROM catalogue_word WHERE foods > 0"
            )
            state["words"] = sorted(cursor.fetchall())
            cursor.execute(_M0013.WORDS_OF.format(t="f", source="catalogue_food", where=""))
            state["words_from_scratch"] = sorted(cursor.fetchall())
            # What the migration computes from scratch over the same foods.
            cursor.execute(_M0013.PHRASE_SELECT.format(t="f", source="catalogue_food"))
            state["phrases_from_scratch"] = sorted(
                (*r[:4], public[r[4]], r[5]) for r in cursor.fetchall()
            )
    return state


def empty_catalogue() -> None:
    FoodRendering.objects.all().delete()
    Food.objects.all().delete()
    Category.objects.all().delete()
    Nutrient.objects.all().delete()
    Market.objects.all().delete()


def load_in_order(order: list[str]) -> dict[str, object]:
    for source in order:
        catalogue_load(source=source, path=SOURCES[source])
    return catalogue_state()
