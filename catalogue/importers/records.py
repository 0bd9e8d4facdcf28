"""What the parsers produce and the writer consumes (pure values)."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

from catalogue.nutrients import headline_columns
from catalogue.search import ranking, text


class _Positional:
    """Pickles as its class and its fields' values in order. The default for a slots
    dataclass looks its fields up through ``dataclasses.fields`` at every record, sent
    to a load's encoding processes and back (catalogue.importers.encoding): 20 us of
    pickling a food, 13 us this way (issue 41.3)."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        return (type(self), tuple([getattr(self, name) for name in self.__slots__]))


@dataclass(frozen=True, slots=True)
class NutrientDef:
    id: int
    number: str
    name: str
    unit: str
    tag: str = ""
    rank: int = 0
    fdc_id: int | None = None


@dataclass(frozen=True, slots=True)
class Portion(_Positional):
    description: str
    gram_weight: float | None

    def as_dict(self) -> dict[str, Any]:
        return {"description": self.description, "gram_weight": self.gram_weight}


@dataclass(frozen=True, slots=True)
class Branded(_Positional):
    """What FDC's release publishes of a branded food (``branded_food.csv``): its GTIN
    as GTIN-14 ("" when it has no valid one: catalogue.gtin), brand name, ingredients,
    serving size and unit as labelled, household serving text, and the food's
    publication date (which of several foods with one GTIN a barcode finds)."""

    gtin: str = ""
    brand_name: str = ""
    ingredients: str = ""
    serving_size: float | None = None
    serving_size_unit: str = ""
    household_serving: str = ""
    published: date | None = None

    def hashed(self) -> list[Any]:
        """The facts as JSON values, for ``FoodRecord.content_hash``."""
        return list((asdict(self) | {"published": str(self.published or "")}).values())


@dataclass(frozen=True, slots=True)
class FoodRecord(_Positional):
    """One food as read from a source; amounts are per 100 g, keyed by nutrient id."""

    source: str
    source_id: str
    name: str
    data_type: str
    market: str
    category_name: str = ""
    category_code: str = ""
    brand_owner: str = ""
    portions: tuple[Portion, ...] = ()
    nutrients: dict[str, float] = field(default_factory=dict)
    # {"Hindi": ("Gai ka doodh",), ...}: names in other languages, searchable (IFCT).
    local_names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Standard deviations of amounts, same keys and units as ``nutrients`` (IFCT).
    nutrient_sd: dict[str, float] = field(default_factory=dict)
    # FoodData Central's id and a branded food's facts (catalogue.importers.fdc_release).
    fdc_id: int | None = None
    branded: Branded | None = None

    @property
    def public_id(self) -> str:
        return f"{self.source}-{self.source_id}"

    def content_hash(self) -> str:
        """Changes exactly when what would be stored changes: a re-run skips equal rows."""
        payload = [
            self.name,
            self.data_type,
            self.market,
            self.category_name,
            self.brand_owner,
            [p.as_dict() for p in self.portions],
            sorted(self.nutrients.items()),
        ]
        if self.local_names or self.nutrient_sd:  # absent: the hashes stored before stay
            payload += [sorted(self.local_names.items()), sorted(self.nutrient_sd.items())]
        if self.fdc_id is not None or self.branded is not None:  # likewise
            payload += [self.fdc_id, self.branded.hashed() if self.branded else None]
        return hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:32]

    @staticmethod
    def column_names() -> tuple[str, ...]:
        """The keys of ``columns()``, in its order."""
        return tuple(_EXAMPLE.columns())

    def columns(self, *, content_hash: str | None = None) -> dict[str, Any]:
        """The ``Food`` column values, except ``category`` (the writer resolves it).
        ``content_hash``: ``self.content_hash()`` when the caller has it already."""
        first = self.portions[0] if self.portions else None
        headlines = headline_columns(self.nutrients)
        return {
            "public_id": self.public_id,
            "source": self.source,
            "source_id": self.source_id,
            "name": self.name,
            "local_names": {language: list(names) for language, names in self.local_names.items()},
            "search_aliases": text.search_aliases(self.local_names),
            "data_type": self.data_type,
            "brand_owner": self.brand_owner,
            "brand_key": self.brand_owner.casefold(),
            "market_id": self.market,
            "serving_description": first.description if first else "",
            "serving_grams": first.gram_weight if first else None,
            "portions": [p.as_dict() for p in self.portions],
            "nutrients": self.nutrients,
            "nutrient_sd": self.nutrient_sd,
            "content_hash": content_hash or self.content_hash(),
            "fdc_id": self.fdc_id,
            **_branded_columns(self.branded),
            **headlines,
            **ranking.food_search_columns(
                name=self.name,
                data_type=self.data_type,
                headlines=headlines,
                category=self.category_name,
            ),
        }


_EXAMPLE = FoodRecord(source="x", source_id="x", name="x", data_type="x", market="x")

BRANDED_COLUMNS = (
    "gtin",
    "brand_name",
    "ingredients",
    "serving_size",
    "serving_size_unit",
    "household_serving",
    "published",
)


def _branded_columns(branded: Branded | None) -> dict[str, Any]:
    """The ``Food`` columns of ``branded``: None each without it (not a branded food of
    the release), and None for each fact it lacks."""
    if branded is None:
        return dict.fromkeys(BRANDED_COLUMNS)
    return {
        "gtin": branded.gtin or None,
        "brand_name": branded.brand_name or None,
        "ingredients": branded.ingredients or None,
        "serving_size": branded.serving_size,
        "serving_size_unit": branded.serving_size_unit or None,
        "household_serving": branded.household_serving or None,
        "published": branded.published,
    }


@dataclass(frozen=True, slots=True)
class Skipped:
    """A malformed row: reported and left out, never half-written."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


class BadValue(ValueError):
    """A field that is not what the format says; the message is the reason reported."""


def amount(raw: str, what: str, *, signed: bool = False) -> float:
    """A finite number, non-negative unless ``signed``, or ``BadValue``. Nutrient
    amounts are ``signed``: USDA publishes a few slightly negative carbohydrates "by
    difference", and they are loaded as published."""
    try:
        number = float(raw)
    except ValueError:
        raise BadValue(f"{what} is not a number: {raw[:40]!r}") from None
    if not math.isfinite(number) or (number < 0 and not signed):
        raise BadValue(f"{what} is out of range: {raw[:40]!r}")
    return number
