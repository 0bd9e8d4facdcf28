"""Reads of the catalogue's reference data: nutrients, categories, markets, source loads.
The food list and search are ``catalogue.search.selectors``; a food by id is read from
its stored rendering (``catalogue.delivery``).

Contracts: every function takes the market the caller may see (None: all markets) and
never returns a record outside it; a missing or invisible record is ``NotFound``.
"""

from __future__ import annotations

import contextlib

from django.conf import settings
from django.core.cache import cache
from django.db.models import Exists, F, OuterRef

from catalogue.models import MARKET_NAMES, Category, Food, Market, Nutrient, SourceLoad
from catalogue.nutrients import NutrientRef
from core import problems
from core.redis import UNREACHABLE

MARKETS_CACHE_KEY = "catalogue:markets-offered-named"
MARKETS_CACHE_SECONDS = 60
NUTRIENTS_CACHE_KEY = "catalogue:nutrients"
NUTRIENTS_CACHE_SECONDS = 300


def nutrients_by_id(*, ids: list[int]) -> dict[int, NutrientRef]:
    """The nutrients among ``ids``, from the nutrient table.

    The table (~150 rows) is reference data that only a load changes, read on every food
    record: it is kept in the shared cache as plain tuples for
    ``NUTRIENTS_CACHE_SECONDS``, and ``catalogue_cache_forget()`` drops it after a load.
    Building (or unpickling) ~150 model instances per record cost more than the rest of
    the read."""
    rows = cache.get(NUTRIENTS_CACHE_KEY)
    if rows is None:
        rows = list(Nutrient.objects.values_list(*NutrientRef._fields))
        cache.set(NUTRIENTS_CACHE_KEY, rows, NUTRIENTS_CACHE_SECONDS)
    wanted = set(ids)
    return {row[0]: NutrientRef(*row) for row in rows if row[0] in wanted}


def nutrient_get(*, nutrient_id: str) -> Nutrient:
    nutrient = None
    if nutrient_id.isascii() and nutrient_id.isdigit() and len(nutrient_id) <= 9:
        nutrient = Nutrient.objects.filter(id=int(nutrient_id)).first()
    if nutrient is None:
        raise problems.NotFound(f"No nutrient {nutrient_id!r}.")
    return nutrient


def category_get(*, slug: str) -> Category:
    category = Category.objects.filter(slug=slug).first()
    if category is None:
        raise problems.NotFound(f"No category {slug!r}.")
    return category


def markets_offered() -> list[str]:
    """Market codes an account may choose: those the catalogue holds foods for, or the
    settings' ``DEFAULT_MARKETS`` while it is empty, sorted."""
    return [code for code, _ in markets_offered_named()]


def markets_offered_named() -> list[tuple[str, str]]:
    """``markets_offered()`` with each market's name (``("IN", "India")``), sorted by
    code. Cached for a minute (it is read on every ``GET /v1/market``);
    ``catalogue_cache_forget()`` drops the cache after a load."""
    named = None
    # Redis unreachable is a miss: the market page and PUT /v1/market still answer
    # from the database (issue 11.4).
    with contextlib.suppress(*UNREACHABLE):
        named = cache.get(MARKETS_CACHE_KEY)
    if named is None:
        with_foods = Market.objects.filter(Exists(Food.objects.filter(market=OuterRef("pk"))))
        named = sorted(with_foods.values_list("code", "name"))
        with contextlib.suppress(*UNREACHABLE):
            cache.set(MARKETS_CACHE_KEY, named, MARKETS_CACHE_SECONDS)
    if not named:
        named = [(code, MARKET_NAMES.get(code, code)) for code in sorted(settings.DEFAULT_MARKETS)]
    return [(code, name) for code, name in named]


def catalogue_cache_forget() -> None:
    """Drop the cached market list and nutrient table (after a load)."""
    cache.delete_many([MARKETS_CACHE_KEY, NUTRIENTS_CACHE_KEY])


def source_loads_list() -> list[SourceLoad]:
    """The loaded sources' food counts per market (``SourceLoad``), by source, market."""
    return list(SourceLoad.objects.order_by("source", "market"))


def food_id_by_gtin(*, gtin: str) -> str:
    """The public id of the food whose barcode is ``gtin`` (a GTIN-14,
    catalogue.gtin.normalise), in any market: the caller's market is applied when the
    record is read, as for a read by id. Several foods with one GTIN (the release
    repeats a product across publications): the newest publication's, then the higher
    FDC id. ``NotFound`` without one, saying where barcodes come from when the
    catalogue holds none at all."""
    found = (
        Food.objects.filter(gtin=gtin)
        .order_by(F("published").desc(nulls_last=True), F("fdc_id").desc(nulls_last=True))
        .values_list("public_id", flat=True)
        .first()
    )
    if found is not None:
        return found
    if not Food.objects.filter(gtin__isnull=False).exists():
        raise problems.NotFound(
            "This catalogue holds no barcodes: they come from USDA's FoodData Central "
            "release, loaded by `manage.py load_catalogue --source fdc-release`."
        )
    raise problems.NotFound(f"No food with the barcode {gtin} (GTIN-14) in this catalogue.")
