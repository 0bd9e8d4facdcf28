"""The headline nutrients: stored as columns of ``Food`` so they filter and sort fast.

Every nutrient amount a source measured lives in ``Food.nutrients`` (per 100 g, keyed
by nutrient id); these twelve are copied into indexed columns as well. Their slugs are
the public filter and sort names (``protein_min``, ``sort=-protein``). ``net_carbs_g``
is worked out from two of them where a record shows them (``headline_amounts``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple


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
# A headline worked out from two others, not stored (so neither filtered nor sorted on):
# carbohydrate by difference minus total dietary fibre (issue 42.5).
NET_CARBS = "net_carbs_g"


def headline_columns(amounts: dict[str, float]) -> dict[str, float | None]:
    """The headline column values for ``amounts`` (``{"203": 0.85, ...}``); a nutrient
    not measured is None, never 0."""
    return {h.column: amounts.get(str(h.nutrient_id)) for h in HEADLINES}


def net_carbs(carbohydrate: float | None, fiber: float | None) -> float | None:
    """Net carbohydrate: ``carbohydrate`` (by difference) minus ``fiber`` (total
    dietary fibre), in the same unit and basis, rounded like ``per_serving`` (6
    significant digits: the subtraction's float noise, 14.66 - 2.4 = 12.260000000000002,
    never shows). None unless both were measured: an absent amount is never read as 0.
    At least 0: fibre above carbohydrate (2,084 FDC foods of 335,703 with both) is the
    error of a figure by difference that absorbs every other component's error, and
    the best estimate of what is left is none; null would say "unknown" of a food whose
    two amounts are both known, and leave a meal's total without it."""
    if carbohydrate is None or fiber is None:
        return None
    return max(0.0, float(f"{carbohydrate - fiber:.6g}"))


def headline_amounts(row: Mapping[str, Any]) -> dict[str, float | None]:
    """The headline amounts of ``row`` (a food's headline columns, per 100 g or scaled
    alike), ``net_carbs_g`` after them: the object a summary's ``nutrients_per_100g``
    is and an analysis line's ``nutrients``."""
    amounts = {h.column: row[h.column] for h in HEADLINES}
    amounts[NET_CARBS] = net_carbs(amounts["carbohydrate_g"], amounts["fiber_g"])
    return amounts


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
