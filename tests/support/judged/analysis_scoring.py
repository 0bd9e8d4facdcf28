"""Scores ``POST /v1/analysis`` on its judged set (``analysis_set``; issue 26, point 5).

A line scores a *food* hit when the matched food's name matches its pattern, a *grams*
hit when its grams lie within ``GRAMS_TOLERANCE`` of the judged grams. Targets (issue
26, full catalogue): at least 90% of each. The lines go through ``analysis_run`` in
requests of at most 100 lines, in ``market`` (None: every market, as a paid tier sees
them; "IN" for tests/support/judged/analysis_set_india.py, as a Taster of market IN
sees them, issue 38.7).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from catalogue.analysis.selectors import analysis_run
from tests.support.judged.analysis_set import LINES

GRAMS_TOLERANCE = 0.15
FOOD_TARGET = 0.90
GRAMS_TARGET = 0.90


@dataclass(frozen=True, slots=True)
class Outcome:
    line: str
    pattern: str
    grams: float
    found: str | None
    found_grams: float | None
    reason: str | None

    @property
    def food_hit(self) -> bool:
        return self.found is not None and re.match(self.pattern, self.found, re.I) is not None

    @property
    def grams_hit(self) -> bool:
        return (
            self.found_grams is not None
            and abs(self.found_grams - self.grams) <= GRAMS_TOLERANCE * self.grams
        )


def evaluate(
    lines: list[tuple[str, str, float]] | None = None, *, market: str | None = None
) -> list[Outcome]:
    """The outcome of every judged line (``LINES`` unless ``lines`` are given), in order,
    analysed among the foods of ``market`` (None: every market)."""
    judged = LINES if lines is None else lines
    out = []
    for start in range(0, len(judged), 100):
        chunk = judged[start : start + 100]
        analysis = analysis_run(lines=[line for line, _, _ in chunk], market=market)
        for (line, pattern, grams), result in zip(chunk, analysis.lines, strict=True):
            food = result["food"]["name"] if result["food"] else None
            out.append(Outcome(line, pattern, grams, food, result["grams"], result.get("reason")))
    return out


def unguessed(lines: list[str], *, market: str | None) -> list[str]:
    """One report line per line of ``lines`` (foods the market does not hold): "ok" when
    it is unmatched, "MATCHED" with the food and grams when another food stood in."""
    analysis = analysis_run(lines=lines, market=market)
    out = []
    for result in analysis.lines:
        if result["food"] is None:
            out.append(f"ok unmatched {result['text']!r}: {result.get('reason')}")
        else:
            food = result["food"]["name"]
            out.append(f"MATCHED {result['text']!r}: {food!r} {result['grams']} g")
    return out


def rates(outcomes: list[Outcome]) -> dict[str, tuple[int, int]]:
    """``food`` and ``grams`` -> (hits, lines)."""
    return {
        "food": (sum(o.food_hit for o in outcomes), len(outcomes)),
        "grams": (sum(o.grams_hit for o in outcomes), len(outcomes)),
    }


def report(outcomes: list[Outcome]) -> list[str]:
    """One line per miss (what was wanted, what was found), then the rates."""
    lines = []
    for o in outcomes:
        if o.food_hit and o.grams_hit:
            continue
        what = (
            "MISS food+grams"
            if not (o.food_hit or o.grams_hit)
            else ("MISS food" if not o.food_hit else "MISS grams")
        )
        found = o.found if o.found is not None else f"unmatched ({o.reason})"
        lines.append(
            f"{what} {o.line!r}: wanted /{o.pattern}/ {o.grams:g} g, got {found!r} "
            f"{o.found_grams if o.found_grams is not None else '-'} g"
        )
    for name, (hits, total) in rates(outcomes).items():
        lines.append(f"{name}: {hits}/{total} = {100 * hits / total:.1f}%")
    return lines
