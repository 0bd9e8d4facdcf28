"""%Daily Value and the nutrition label of a market's labelling rules (issue 40.1; pure).

Amounts come keyed by the headline columns (catalogue.nutrients.HEADLINES: ``energy_kcal``,
``fat_g``, ...), per 100 g, per serving or for a whole analysed meal; a nutrient not
measured is None and stays None (never 0). Two references, chosen by the market:

- **US**: FDA, 21 CFR 101.9(c)(8)(iv) and (c)(9), the Daily Values of the 2016 rule for
  adults and children 4 years and older (``US_DAILY_VALUES``); the label's amounts rounded
  by 21 CFR 101.9(c)(1)-(7) and its %DV by (c)(8)(iii) for vitamins and minerals, to
  the nearest percent for the rest (``us_label``).
- **IN**: FSSAI, Food Safety and Standards (Labelling and Display) Regulations 2020: the
  per-serve percentage contribution to the RDA, on the basis the regulation states for an
  average adult per day (2,000 kcal, total fat 67 g, saturated fat 22 g, trans fat 2 g,
  added sugar 50 g, sodium 2,000 mg; ICMR-NIN's recommended dietary allowances):
  ``IN_DAILY_VALUES`` (energy, fat, saturated fat, sodium: the catalogue has no column
  for trans fat or added sugar). FSSAI prescribes no rounding of its own; the label gives
  energy and sodium in whole units, masses to one decimal, %RDA in whole percent.

Other markets read the US rules (the catalogue's default market). ``daily_values`` gives
the percentages unrounded to 0.1 (for computing); ``label`` the panel a client prints.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Amounts = dict[str, float | None]


@dataclass(frozen=True, slots=True)
class Rules:
    market: str
    source: str
    values: dict[str, float]  # headline column -> the daily reference amount


US_DAILY_VALUES: dict[str, float] = {
    "fat_g": 78.0,
    "saturated_fat_g": 20.0,
    "cholesterol_mg": 300.0,
    "sodium_mg": 2300.0,
    "carbohydrate_g": 275.0,
    "fiber_g": 28.0,
    "protein_g": 50.0,
    "calcium_mg": 1300.0,
    "iron_mg": 18.0,
    "potassium_mg": 4700.0,
}
IN_DAILY_VALUES: dict[str, float] = {
    "energy_kcal": 2000.0,
    "fat_g": 67.0,
    "saturated_fat_g": 22.0,
    "sodium_mg": 2000.0,
}
US = Rules(
    "US",
    "FDA 21 CFR 101.9(c) (2016 rule): Daily Values for adults and children 4 years and older",
    US_DAILY_VALUES,
)
IN = Rules(
    "IN",
    "FSSAI Labelling and Display Regulations 2020: % of RDA (ICMR-NIN 2020) for an average "
    "adult per day",
    IN_DAILY_VALUES,
)
# Vitamins and minerals: their %DV is rounded by 21 CFR 101.9(c)(8)(iii).
US_MICRONUTRIENTS = frozenset({"calcium_mg", "iron_mg", "potassium_mg"})


def rules_for(market: str | None) -> Rules:
    """The labelling rules of ``market``: India's for IN, the US rules otherwise."""
    return IN if market == "IN" else US


def daily_values(amounts: Amounts, market: str | None) -> dict[str, Any]:
    """``{"market", "source", "percent": {column: % of the daily reference}}`` for the
    nutrients the market's rules give a reference for, to 0.1; None where the amount was
    not measured."""
    rules = rules_for(market)
    return {
        "market": rules.market,
        "source": rules.source,
        "percent": {
            column: _percent(amounts.get(column), reference)
            for column, reference in rules.values.items()
        },
    }


def daily_values_by(market: str | None, bases: dict[str, Amounts | None]) -> dict[str, Any]:
    """``{"market", "source", basis: percents}`` for each of ``bases`` (``per_100g``,
    ``totals``, ...): the ``percent`` object of ``daily_values``, None for a basis without
    amounts (a record without a serving weight)."""
    rules = rules_for(market)
    out: dict[str, Any] = {"market": rules.market, "source": rules.source}
    for basis, amounts in bases.items():
        out[basis] = None if amounts is None else daily_values(amounts, market)["percent"]
    return out


def _percent(amount: float | None, reference: float) -> float | None:
    return None if amount is None else round(100 * amount / reference, 1)


def label(amounts: Amounts, market: str | None, *, basis: str) -> dict[str, Any]:
    """The nutrition label of ``amounts`` under the market's rules: ``format``, the
    ``basis`` it states ("per serving (240 g)", "per 100 g", "whole recipe"), the
    ``source`` and ``rows``: each nutrient's ``name``, ``amount`` (rounded, None when not
    measured), ``unit``, ``text`` as printed ("8g", "less than 1g") and ``percent``
    (rounded %DV or %RDA, None without a reference or an amount)."""
    rules = rules_for(market)
    rows = us_label(amounts) if rules is US else in_label(amounts)
    return {
        "format": "us_fda_2016" if rules is US else "in_fssai_2020",
        "basis": basis,
        "source": rules.source,
        "rows": rows,
    }


# --- United States: 21 CFR 101.9(c) ----------------------------------------------------

# (column, name on the panel, unit) in the panel's order; energy is "Calories".
US_ROWS: tuple[tuple[str, str, str], ...] = (
    ("energy_kcal", "Calories", "kcal"),
    ("fat_g", "Total Fat", "g"),
    ("saturated_fat_g", "Saturated Fat", "g"),
    ("cholesterol_mg", "Cholesterol", "mg"),
    ("sodium_mg", "Sodium", "mg"),
    ("carbohydrate_g", "Total Carbohydrate", "g"),
    ("fiber_g", "Dietary Fiber", "g"),
    ("sugars_g", "Total Sugars", "g"),
    ("protein_g", "Protein", "g"),
    ("calcium_mg", "Calcium", "mg"),
    ("iron_mg", "Iron", "mg"),
    ("potassium_mg", "Potassium", "mg"),
)


def _nearest(value: float, step: float) -> float:
    """``value`` to the nearest multiple of ``step``, halves up (a label rounds 2.5 to 3)."""
    return round(math.floor(value / step + 0.5) * step, 10)


def us_amount(column: str, value: float) -> tuple[float, str]:
    """The declared amount of ``column`` and its text, by 21 CFR 101.9(c):

    - calories (c)(1): below 5 -> 0; up to 50 -> nearest 5; above -> nearest 10;
    - total and saturated fat (c)(2): below 0.5 g -> 0; below 5 g -> nearest 0.5 g; else
      nearest 1 g;
    - cholesterol (c)(3): below 2 mg -> 0; 2 to 5 mg -> "less than 5 mg"; else nearest 5 mg;
    - sodium, potassium (c)(4), (c)(5): below 5 mg -> 0; 5 to 140 mg -> nearest 5 mg; else
      nearest 10 mg;
    - carbohydrate, fibre, sugars, protein (c)(6), (c)(7): below 0.5 g -> 0; below 1 g ->
      "less than 1 g"; else nearest 1 g;
    - calcium nearest 10 mg, iron nearest 0.1 mg (FDA's guidance on declaring vitamins and
      minerals in their units, 21 CFR 101.9(c)(8)(iii)).
    """
    if column == "energy_kcal":
        amount = 0.0 if value < 5 else _nearest(value, 5 if value <= 50 else 10)
        return amount, f"{amount:g}"
    if column in ("fat_g", "saturated_fat_g"):
        amount = 0.0 if value < 0.5 else _nearest(value, 0.5 if value < 5 else 1)
        return amount, f"{amount:g}g"
    if column == "cholesterol_mg":
        if value < 2:
            return 0.0, "0mg"
        if value <= 5:
            return 5.0, "less than 5mg"
        amount = _nearest(value, 5)
        return amount, f"{amount:g}mg"
    if column in ("sodium_mg", "potassium_mg"):
        amount = 0.0 if value < 5 else _nearest(value, 5 if value <= 140 else 10)
        return amount, f"{amount:g}mg"
    if column == "calcium_mg":
        amount = _nearest(value, 10)
        return amount, f"{amount:g}mg"
    if column == "iron_mg":
        amount = _nearest(value, 0.1)
        return amount, f"{amount:g}mg"
    # carbohydrate, fibre, sugars, protein
    if value < 0.5:
        return 0.0, "0g"
    if value < 1:
        return 1.0, "less than 1g"
    amount = _nearest(value, 1)
    return amount, f"{amount:g}g"


def us_percent(column: str, value: float) -> int:
    """The %DV printed for ``column`` (of the amount before rounding, as 21 CFR
    101.9(c)(8)(ii) allows): vitamins and minerals by (c)(8)(iii) (below 2 % -> 0; up to
    10 % -> nearest 2 %; up to 50 % -> nearest 5 %; above -> nearest 10 %), the rest to
    the nearest percent."""
    percent = 100 * value / US_DAILY_VALUES[column]
    if column not in US_MICRONUTRIENTS:
        return int(_nearest(percent, 1))
    if percent < 2:
        return 0
    step = 2 if percent <= 10 else 5 if percent <= 50 else 10
    return int(_nearest(percent, step))


def _panel(
    amounts: Amounts,
    rows: tuple[tuple[str, str, str], ...],
    declare: Callable[[str, float, str], tuple[float, str, int | None]],
) -> list[dict[str, Any]]:
    """The panel's ``rows`` of ``amounts``: each row's amount, text and percent as
    ``declare`` rounds them; a nutrient not measured is None throughout, never 0."""
    out = []
    for column, name, unit in rows:
        value = amounts.get(column)
        row: dict[str, Any] = {"nutrient": column, "name": name, "unit": unit}
        amount, text, percent = (
            (None, None, None) if value is None else declare(column, value, unit)
        )
        out.append(row | {"amount": amount, "text": text, "percent": percent})
    return out


def _us_declare(column: str, value: float, unit: str) -> tuple[float, str, int | None]:
    amount, text = us_amount(column, value)
    return amount, text, us_percent(column, value) if column in US_DAILY_VALUES else None


def us_label(amounts: Amounts) -> list[dict[str, Any]]:
    return _panel(amounts, US_ROWS, _us_declare)


# --- India: FSSAI Labelling and Display Regulations 2020 -------------------------------

IN_ROWS: tuple[tuple[str, str, str], ...] = (
    ("energy_kcal", "Energy", "kcal"),
    ("protein_g", "Protein", "g"),
    ("carbohydrate_g", "Carbohydrate", "g"),
    ("sugars_g", "Total Sugars", "g"),
    ("fat_g", "Total Fat", "g"),
    ("saturated_fat_g", "Saturated Fat", "g"),
    ("cholesterol_mg", "Cholesterol", "mg"),
    ("sodium_mg", "Sodium", "mg"),
)


def _in_declare(column: str, value: float, unit: str) -> tuple[float, str, int | None]:
    amount = _nearest(value, 1) if unit in ("kcal", "mg") else _nearest(value, 0.1)
    reference = IN_DAILY_VALUES.get(column)
    percent = None if reference is None else int(_nearest(100 * value / reference, 1))
    return amount, f"{amount:g} {unit}", percent


def in_label(amounts: Amounts) -> list[dict[str, Any]]:
    return _panel(amounts, IN_ROWS, _in_declare)
