"""The headline nutrients: stored as columns of ``Food`` so they filter and sort fast.

Every nutrient amount a source measured lives in ``Food.nutrients`` (per 100 g, keyed
by nutrient id); these twelve are copied into indexed columns as well. Their slugs are
the public filter and sort names (``protein_min``, ``sort=-protein``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True, slots=True)
class Headline:
    slug: str  # public name in filters, sorting and the summary object
    nutrient_id: int  # USDA SR nutrient number (catalogue.Nutrient.id)
    column: str  # Food column holding the amount per 100 g
    unit: str


HEADLINES: tuple[Headline, ...] = (
    Headline("energy", 208, "energy_kcal", "kcal"),
    Headline("protein", 203, "protein_g", "g"),
    Headline("fat", 204, "fat_g", "g"),
    Headline("saturated_fat", 606, "saturated_fat_g", "g"),
    Headline("carbohydrate", 205, "carbohydrate_g", "g"),
    Headline("sugars", 269, "sugars_g", "g"),
    Headline("fiber", 291, "fiber_g", "g"),
    Headline("cholesterol", 601, "cholesterol_mg", "mg"),
    Headline("sodium", 307, "sodium_mg", "mg"),
    Headline("potassium", 306, "potassium_mg", "mg"),
    Headline("calcium", 301, "calcium_mg", "mg"),
    Headline("iron", 303, "iron_mg", "mg"),
)
BY_SLUG: dict[str, Headline] = {h.slug: h for h in HEADLINES}


def headline_columns(amounts: dict[str, float]) -> dict[str, float | None]:
    """The headline column values for ``amounts`` (``{"203": 0.85, ...}``); a nutrient
    not measured is None, never 0."""
    return {h.column: amounts.get(str(h.nutrient_id)) for h in HEADLINES}


def per_serving(amount: float | None, gram_weight: float | None) -> float | None:
    """``amount`` (per 100 g) scaled to a serving of ``gram_weight`` grams, rounded to 6
    significant digits; None when either is unknown (a nutrient not measured stays
    null, a serving without a weight has no per-serving amounts)."""
    if amount is None or gram_weight is None or gram_weight <= 0:
        return None
    return float(f"{amount * gram_weight / 100:.6g}")


class NutrientRef(NamedTuple):
    """What a food record says of a nutrient."""

    id: int
    number: str
    name: str
    unit: str
    rank: int
