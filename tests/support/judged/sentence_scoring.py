"""Scores the splitter on its judged set (tests/support/judged/sentence_set.py; issue
39.3): a sentence is right when the items it is split into (catalogue.analysis.
sentences, the dish lookup of catalogue.analysis.dishes in its market) are exactly the
judged ones, in order, case and spacing aside. Target (the issue's): at least 90% of
sentences right.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalogue.analysis.dishes import named
from catalogue.analysis.sentences import items, joins, pieces

TARGET = 0.90


@dataclass(frozen=True, slots=True)
class Outcome:
    sentence: str
    expected: list[str]
    found: list[str]

    @property
    def right(self) -> bool:
        return _norm(self.found) == _norm(self.expected)


def _norm(words: list[str]) -> list[str]:
    return [" ".join(item.casefold().split()) for item in words]


def split(sentence: str, market: str | None) -> list[str]:
    """The items of ``sentence`` as ``POST /v1/analysis`` splits it in ``market``."""
    found = pieces(sentence)
    return items(found, named(joins(found, market), market))


def evaluate(judged: list[tuple[str, list[str]]], *, market: str | None) -> list[Outcome]:
    """The outcome of every judged sentence, in order, split in ``market``."""
    return [Outcome(s, expected, split(s, market)) for s, expected in judged]


def report(outcomes: list[Outcome]) -> list[str]:
    """A line per miss (the sentence, the items judged, the items found), then the rate."""
    out = [
        f"MISS {o.sentence!r}\n     judged {o.expected}\n     found  {o.found}"
        for o in outcomes
        if not o.right
    ]
    right = sum(o.right for o in outcomes)
    rate = right / len(outcomes) if outcomes else 0.0
    out.append(f"sentences right: {right}/{len(outcomes)} = {rate:.0%} (target {TARGET:.0%})")
    return out
