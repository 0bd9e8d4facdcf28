"""Grams of a parsed line from a food's household measures (pure).

- a mass unit converts exactly (``200 g``, ``4 oz``); no measure is needed;
- a volume unit uses the food's volume measure, preferring one with the line's
  preparation ("1 cup, chopped" for "1 cup chopped broccoli"; a cut small, ``SMALL_CUTS``,
  stands for another: "1 cup chopped" for "1 cup diced celery"), then a plain one ("1
  cup"); a food measured only in tbsp still weighs a cup (1 cup = 16 tbsp = 48 tsp =
  236.6 ml, catalogue.analysis.units);
- a count word uses the food's measure of that word ("1 large", "1 slice", "1 clove");
  a package word with a stated size ("2 28-ounce cans", ``ParsedLine.package``) weighs
  count x size instead (issue 38.4);
- no unit ("1 apple", "10 almonds") uses the food's own count measure: one named after
  the food by the line's words ("1 almond") or by the first part of its name ("1
  pepper" of "Peppers, jalapeno, raw" for "1 jalapeno"), else "1 medium", else a piece
  or fruit, else "1 large", "1 small".

A food with no way to weigh the line gets a ``reason`` instead, never a guess.

The amount is never bounded before conversion: a count says nothing of the weight ("99999
gallons honey" is 542,394,576 g). The weight is: a line the matched food weighs over
``MAX_GRAMS`` is refused for that line (``overweight``, applied once to the match by
catalogue.analysis.selectors, so the bound never changes which food is matched), with
the weight and the measure that gave it in its ``reason`` (issue 36.6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from catalogue.analysis.parser import PREPARATION, ParsedLine, parse_line
from catalogue.analysis.units import PACKAGES, Unit
from catalogue.search import text

_UNITLESS_SIZES = ("medium", "large", "small")
_PREPARED = frozenset(text.stem(word) for word in PREPARATION)
_UNITLESS_OTHER = frozenset({"piece", "fruit", "item", "unit", "whole", "each"})
# Cuts into small pieces: a cup of one weighs about a cup of another.
SMALL_CUTS = frozenset(text.stem(word) for word in ("chopped", "diced", "cubed", "minced"))


# The most one line may weigh: 100 kg holds a catering batch (a 25 kg sack of flour, a
# 50 lb bag of rice, a whole turkey); past it the amount or the unit is a slip.
MAX_GRAMS = 100_000.0


@dataclass(frozen=True, slots=True)
class Measure:
    """One household measure: ``amount`` ``unit`` (None: none recognised) of ``words``
    (the rest of its description), weighing ``grams``."""

    description: str
    amount: float
    unit: Unit | None
    words: frozenset[str]
    grams: float


@dataclass(frozen=True, slots=True)
class Weighing:
    """``grams`` of the line and the ``portion`` used ("1 tbsp = 14.2 g"; None for a
    mass unit), or ``reason`` (grams None) when the food cannot weigh it."""

    grams: float | None
    portion: str | None = None
    reason: str | None = None
    # False when the line names a preparation the measure used does not share.
    fits: bool = True


def measures(portions: list[dict[str, Any]]) -> list[Measure]:
    """The usable measures of a food's ``portions`` (``[{"description", "gram_weight"}]``):
    those with a positive weight and a description. FDC's descriptions are a bare unit
    ("cup"): one of it."""
    out = []
    for portion in portions:
        if not isinstance(portion, dict):
            continue
        grams, description = portion.get("gram_weight"), portion.get("description") or ""
        if not isinstance(grams, int | float) or not grams > 0 or not description.strip():
            continue
        parsed = parse_line(description, measure=True)
        if parsed.quantity is None:
            parsed = parse_line(f"1 {description}", measure=True)
        if not parsed.quantity:
            continue
        words = {*text.words(parsed.food), *parsed.preparation}
        out.append(Measure(description, parsed.quantity, parsed.unit, frozenset(words), grams))
    return out


def weigh(
    line: ParsedLine, portions: list[dict[str, Any]], *, food_words: str = "", name: str = ""
) -> Weighing:
    """The grams of ``line`` in a food with these ``portions``; ``food_words``: the
    words the line named the food with (for a unit-less count, "almonds"); ``name``:
    the food's name (its first part may name its count measure too)."""
    quantity = 1.0 if line.quantity is None else line.quantity
    unit = line.unit
    if unit is not None and unit.kind == "mass":
        return Weighing(round(quantity * (unit.size or 0), 1))
    if unit is None and line.quantity is None:
        return Weighing(None, reason="No amount: say how much, e.g. '1 cup' or '100 g'.")
    usable = measures(portions)
    if unit is not None and line.package is not None and unit.name in PACKAGES:
        return _packaged(line, usable, quantity)
    if unit is not None and unit.kind == "volume":
        chosen = _best([m for m in usable if m.unit and m.unit.kind == "volume"], line)
        if chosen is None:
            return Weighing(None, reason="No volume measure for this food; give grams.")
        per_ml = chosen.grams / (chosen.amount * (chosen.unit.size or 1))  # type: ignore[union-attr]
        return _weighed(quantity * (unit.size or 0) * per_ml, chosen, line)
    if unit is not None:
        named = [m for m in usable if m.unit is not None and m.unit.name == unit.name]
        named += [m for m in usable if m.unit is None and unit.name in m.words]
        chosen = _best(named, line)
        if chosen is None:
            return Weighing(None, reason=f"No '{unit.name}' measure for this food; give grams.")
        return _weighed(quantity * chosen.grams / chosen.amount, chosen, line)
    chosen = _counted(usable, food_words or line.food, name)
    if chosen is None:
        return Weighing(None, reason="No count measure for this food; give a unit or grams.")
    return _weighed(quantity * chosen.grams / chosen.amount, chosen, line)


def _packaged(line: ParsedLine, usable: list[Measure], quantity: float) -> Weighing:
    """A count of packages of a stated size ("2 28-ounce cans") weighs count x size,
    whatever the food's own "can" measure (issue 38.4): a mass size directly, a volume
    size through the food's volume measure, as a volume line would."""
    package, unit = line.package, line.unit
    assert package is not None and unit is not None  # the caller checked
    said = f"{quantity:g} {unit.name}{'' if quantity == 1 else 's'} of {package}"
    if package.unit.kind == "mass":
        grams = round(quantity * package.size, 1)
        return Weighing(grams, portion=f"{said} = {grams:g} g")
    chosen = _best([m for m in usable if m.unit and m.unit.kind == "volume"], line)
    if chosen is None:
        return Weighing(None, reason="No volume measure for this food; give grams.")
    per_ml = chosen.grams / (chosen.amount * (chosen.unit.size or 1))  # type: ignore[union-attr]
    grams = round(quantity * package.size * per_ml, 1)
    return Weighing(
        grams, portion=f"{said} = {grams:g} g ({chosen.description} = {chosen.grams:g} g)"
    )


def overweight(weighing: Weighing) -> str:
    """Why a line weighed as ``weighing`` is refused: its grams over ``MAX_GRAMS``, said
    with the measure used; ``""`` when within it (or not weighed)."""
    if weighing.grams is None or weighing.grams <= MAX_GRAMS:
        return ""
    grams = f"{weighing.grams:,.0f}" if weighing.grams < 1e12 else f"{weighing.grams:.3g}"
    by = f" ({weighing.portion})" if weighing.portion else ""
    return (
        f"Weighs {grams} g{by}, over the {MAX_GRAMS / 1000:g} kg one line may weigh: "
        "check the amount and the unit."
    )


def _weighed(grams: float, measure: Measure, line: ParsedLine) -> Weighing:
    wanted = _preparations(line)
    fits = not wanted or bool(wanted & {text.stem(word) for word in measure.words})
    portion = f"{measure.description} = {measure.grams:g} g"
    return Weighing(round(grams, 1), portion=portion, fits=fits)


def _best(candidates: list[Measure], line: ParsedLine) -> Measure | None:
    """The measure whose qualifiers best fit the line: sharing its preparation words
    first (compared on stems: "sliced" fits "slices"), last one with a preparation the
    line did not ask for ("1 cup, whipped" for "1/2 cup heavy cream"); among equals,
    one of the line's own unit ("1 tsp, ground" before "1 dash" for a tsp), then a plain
    one, then a medium one ("1 stalk, medium"), then the food's own order."""
    wanted = _preparations(line)
    asked = line.unit.name if line.unit else None

    def rank(measure: Measure) -> tuple[int, int, int, int]:
        words = {text.stem(word) for word in measure.words}
        fit = 0 if wanted & words else 2 if words & _PREPARED - wanted else 1
        own = 0 if measure.unit is not None and measure.unit.name == asked else 1
        return fit, own, 1 if words else 0, 0 if "medium" in words else 1

    return min(candidates, key=rank, default=None)


def _preparations(line: ParsedLine) -> set[str]:
    """The stems of the line's preparation words a measure may share; one small cut
    stands for every other (``SMALL_CUTS``)."""
    wanted = {text.stem(word) for word in line.preparation}
    return wanted | SMALL_CUTS if wanted & SMALL_CUTS else wanted


def _counted(usable: list[Measure], food_words: str, name: str = "") -> Measure | None:
    """A unit-less count's measure: named after the food, else by size, else a piece."""
    words = text.words(food_words)
    # "sweet potato" is SR28's "1 sweetpotato, 5" long"
    stems = {text.stem(word) for word in words} | {text.stem("".join(words))}
    first = text.words(name.split(",")[0])
    if len(first) == 1:  # "Peppers, jalapeno, raw": "1 pepper" is one jalapeno
        stems.add(text.stem(first[0]))
    named = [
        measure
        for measure in usable
        if (measure.unit is None or measure.unit.kind == "count")
        and stems & {text.stem(name) for name in _names(measure)}
    ]
    if named:  # "1 almond"; of "1 Potato large", "1 Potato medium": the medium one
        return next((m for m in named if "medium" in m.words), named[0])
    for size in _UNITLESS_SIZES:
        for measure in usable:
            if measure.unit is not None and measure.unit.name == size:
                return measure
        if size == "medium":  # "1 fruit (2-5/8" dia)" is the usual one, before sizes
            for measure in usable:
                if _names(measure) & _UNITLESS_OTHER:
                    return measure
    return None


def _names(measure: Measure) -> set[str]:
    """What a measure counts: its count word, or its words when it has no unit."""
    return set(measure.words) if measure.unit is None else {measure.unit.name}
