"""The units people write in ingredient lines, one table (pure).

Mass units convert to grams exactly; volume units to millilitres (US customary
measures, as SR28's household measures are: 1 cup = 16 tbsp = 48 tsp = 236.588 ml);
count words ("large", "slice", "clove") have no fixed weight: the matched food's own
household measure gives it (catalogue.analysis.weighing).

``pint`` 0.25 was weighed for this table and not taken (tried 2026-11-25): importing it
and building its registry takes 0.84 s per process; it reads "1 T" as one tesla and
"3 fl oz" as femtolitre-ounces; "tbs" and "clove" are undefined. Its volume factors are
the ones below; the aliases and count words would be this same table on top of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["mass", "volume", "count"]

ML_PER_CUP = 236.5882365


@dataclass(frozen=True, slots=True)
class Unit:
    """``name``: the canonical spelling echoed to clients; ``size``: grams (mass) or
    millilitres (volume) in one unit, None for a count word."""

    name: str
    kind: Kind
    size: float | None = None


_MASS = {
    "g": (1.0, "g gr grs gm gms gram grams gramme grammes"),
    "kg": (1000.0, "kg kgs kilo kilos kilogram kilograms kilogramme kilogrammes"),
    "mg": (0.001, "mg milligram milligrams"),
    "oz": (28.349523125, "oz ozs ounce ounces"),
    "lb": (453.59237, "lb lbs pound pounds"),
}
_VOLUME = {
    "ml": (1.0, "ml mls milliliter milliliters millilitre millilitres cc"),
    "cl": (10.0, "cl centiliter centiliters centilitre centilitres"),
    "dl": (100.0, "dl deciliter deciliters decilitre decilitres"),
    "l": (1000.0, "l ltr ltrs liter liters litre litres"),
    "cup": (ML_PER_CUP, "c cup cups"),
    "tbsp": (ML_PER_CUP / 16, "tbsp tbsps tbs tbl tbls tblsp tablespoon tablespoons"),
    "tsp": (ML_PER_CUP / 48, "tsp tsps teaspoon teaspoons"),
    "fl oz": (ML_PER_CUP / 8, "floz"),
    "pint": (ML_PER_CUP * 2, "pt pts pint pints"),
    "quart": (ML_PER_CUP * 4, "qt qts quart quarts"),
    "gallon": (ML_PER_CUP * 16, "gal gals gallon gallons"),
    "pinch": (ML_PER_CUP / 48 / 16, "pinch pinches"),
    "dash": (ML_PER_CUP / 48 / 8, "dash dashes"),
    # What a diary's "a glass of milk", "a mug of tea", "a bowl of oatmeal" hold (issue
    # 39.3): one cup, the FDA's reference amount customarily consumed (21 CFR 101.12) of
    # milk (240 ml), of soup and of hot cereal (1 cup). Echoed as the word written.
    "glass": (ML_PER_CUP, "glass glasses"),
    "mug": (ML_PER_CUP, "mug mugs"),
    "bowl": (ML_PER_CUP, "bowl bowls"),
}
# Count words: the singular is the canonical name; SR28 measures say "1 large", "1 slice".
_COUNT = (
    "large medium small jumbo slice clove can stick piece pat container"
    " leaf sprig head stalk bunch bar packet package bottle jar fillet breast thigh"
    " drumstick wing link patty strip scoop spear ear cube wedge serving"
    " loaf roll tortilla cookie cracker muffin bagel biscuit pancake waffle"
    " envelope pouch box bag carton rib"
    " tin pack bulb sheet drop handful knob rack stem"
)
_COUNT_PLURALS = {"leaves": "leaf", "loaves": "loaf"}


def _table() -> dict[str, Unit]:
    table: dict[str, Unit] = {}
    for kind, group in (("mass", _MASS), ("volume", _VOLUME)):
        for name, (size, spellings) in group.items():
            for spelling in spellings.split():
                table[spelling] = Unit(name, kind, size)  # type: ignore[arg-type]
    for word in _COUNT.split():
        if word not in table:
            # "bunches", "boxes", "pouches" (issue 38.5: the table once spelled "bunchs")
            plural = word + ("es" if word.endswith(("ch", "sh", "x", "s")) else "s")
            table[word] = table[plural] = Unit(word, "count")
    for plural, word in _COUNT_PLURALS.items():
        table[plural] = Unit(word, "count")
    table["pieces"] = Unit("piece", "count")
    return table


UNITS: dict[str, Unit] = _table()
# Two-word units, looked up before one-word ones: "fl oz", "fluid ounces".
UNITS_2: dict[tuple[str, str], Unit] = {
    (first, second): UNITS["floz"]
    for first in ("fl", "fluid")
    for second in ("oz", "ozs", "ounce", "ounces")
}
# Case matters for one spelling pair only: "1 T" is a tablespoon, "1 t" a teaspoon.
CASED = {"T": UNITS["tbsp"], "t": UNITS["tsp"]}
# Sizes that may stand before another count word ("1 large can"): the later word wins.
SIZES = frozenset({"large", "medium", "small", "jumbo"})
# Count words that hold a stated size ("2 28-ounce cans", "1 (400 g) tin"): a line
# counting one of them with its size weighs count x size (issue 38.4).
PACKAGES = frozenset(
    [
        "can",
        "jar",
        "envelope",
        "packet",
        "package",
        "bottle",
        "tin",
        "carton",
        "box",
        "bag",
        "pouch",
        "container",
        "pack",
    ]
)
