"""Scores logged plates (tests/support/judged/plate_set.py; issue 38's target with issue
39.4's logging form): each plate is sent as one ``logging`` analysis (``analysis_run``,
``nutrition_type="logging"``; or ``cooking``, to compare), and its energy, protein, fat and
carbohydrate totals are compared with the reference foods' per-100 g values times the
grams: a hit within ``TOLERANCE`` (15 %). Targets: energy on at least 90 % of plates,
protein, fat and carbohydrate each on at least 85 %.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from catalogue.analysis.selectors import analysis_run
from catalogue.models import Food

TOLERANCE = 0.15
# A total this small (g or kcal) is compared within this much absolutely instead: a plate
# of fruit holds about no fat, and 0.4 g against 0.2 g is no miss.
FLOOR = {"energy_kcal": 15.0, "protein_g": 2.0, "fat_g": 2.0, "carbohydrate_g": 3.0}
KEYS = tuple(FLOOR)
TARGETS = {"energy_kcal": 0.90, "protein_g": 0.85, "fat_g": 0.85, "carbohydrate_g": 0.85}


@dataclass(frozen=True, slots=True)
class PlateOutcome:
    lines: list[str]
    wanted: dict[str, float]
    got: dict[str, float]
    chosen: list[str] = field(default_factory=list)

    def hit(self, key: str) -> bool:
        wanted, got = self.wanted[key], self.got[key]
        return abs(got - wanted) <= max(TOLERANCE * wanted, FLOOR[key])


def references(foods: dict[str, tuple[str, str]]) -> dict[str, dict[str, float]]:
    """Per-100 g values (``KEYS``) of each reference food, by the words naming it, read by
    public id; a reference whose name is not the one written is an error (the set names
    the food meant, not whatever holds the id)."""
    rows = {
        row["public_id"]: row
        for row in Food.objects.filter(public_id__in={p for p, _ in foods.values()}).values(
            "public_id", "name", *KEYS
        )
    }
    out = {}
    for words, (public_id, name) in foods.items():
        row = rows.get(public_id)
        if row is None or row["name"] != name:
            raise LookupError(f"{words!r}: {public_id} is not {name!r} in this catalogue")
        out[words] = {key: row[key] or 0.0 for key in KEYS}
    return out


def evaluate(
    plates: list[list[tuple[float, str]]],
    foods: dict[str, tuple[str, str]],
    *,
    market: str | None = None,
    nutrition_type: str = "logging",
) -> list[PlateOutcome]:
    """The outcome of every plate, in order: one analysis of its lines in ``market``."""
    per_100 = references(foods)
    out = []
    for plate in plates:
        lines = [f"{grams:g} g {words}" for grams, words in plate]
        analysis = analysis_run(lines=lines, market=market, nutrition_type=nutrition_type)
        wanted = {
            key: sum(per_100[words][key] * grams / 100 for grams, words in plate) for key in KEYS
        }
        got = {key: analysis.totals[key] or 0.0 for key in KEYS}
        chosen = [
            f"{line['text']} -> {line['food']['name'] if line['food'] else 'unmatched'}"
            for line in analysis.lines
        ]
        out.append(PlateOutcome(lines, wanted, got, chosen))
    return out


def rates(outcomes: list[PlateOutcome]) -> dict[str, tuple[int, int]]:
    """Each key -> (plates within the tolerance, plates)."""
    return {key: (sum(o.hit(key) for o in outcomes), len(outcomes)) for key in KEYS}


def report(outcomes: list[PlateOutcome]) -> list[str]:
    """One line per plate missing any key (what was wanted, what was found, the foods
    chosen), then one line a key with its rate."""
    lines = []
    for o in outcomes:
        missed = [key for key in KEYS if not o.hit(key)]
        if missed:
            gaps = ", ".join(f"{k} {o.got[k]:.0f} for {o.wanted[k]:.0f}" for k in missed)
            lines.append(f"MISS {'; '.join(o.lines)}: {gaps} [{'; '.join(o.chosen)}]")
    for key, (hits, total) in rates(outcomes).items():
        lines.append(f"{key}: {hits}/{total} = {100 * hits / total:.1f}%")
    return lines
