"""Synonyms and regional names (docs/catalogue.md, "Synonyms"): the words people type in
the UK, Australia, India and the US -> the words the searched market's foods are named
with ("aubergine" -> "eggplant" in market US, "eggplant" -> "brinjal" in market IN).

The table is a data file, ``catalogue/data/synonyms.csv`` (its header says where it
comes from and how to extend it), read once per process. ``rewrite`` is pure and runs at
query time on both backends, before matching and ranking, so a food found through a
synonym ranks exactly as if its word had been typed; the search's ``meta.synonyms``
says which synonyms were used.
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from pathlib import Path

from catalogue.search import text

TABLE = Path(__file__).resolve().parents[1] / "data" / "synonyms.csv"
# The longest typed phrase of the table, in words.
MAX_PHRASE = 4


@dataclass(frozen=True, slots=True)
class Used:
    typed: str  # the query's words that were replaced
    searched: str  # what they were searched as


@functools.cache
def table() -> dict[str, dict[tuple[str, ...], str]]:
    """market -> (the stems of a typed phrase) -> the words searched instead."""
    found: dict[str, dict[tuple[str, ...], str]] = {}
    with TABLE.open(newline="", encoding="utf-8") as handle:
        lines = (line for line in handle if line.strip() and not line.startswith("#"))
        for row in csv.DictReader(lines):
            typed = tuple(text.stem(word) for word in text.words(row["typed"]))
            searched = " ".join(text.words(row["searched"]))
            if typed and searched and len(typed) <= MAX_PHRASE:
                found.setdefault(row["market"].strip().upper(), {})[typed] = searched
    return found


def rewrite(q: str, market: str | None) -> tuple[str, tuple[Used, ...]]:
    """``q``'s words with every phrase of ``market``'s table (None: market US's, the
    default catalogue) replaced by its catalogue words, the longest phrase first, left
    to right; and what was replaced. ``q`` comes back unchanged (its own text, not its
    words) when nothing was."""
    synonyms = table().get(market or "US", {})
    terms = text.words(q)
    if not synonyms or not terms:
        return q, ()
    stems = [text.stem(term) for term in terms]
    out: list[str] = []
    used: list[Used] = []
    i = 0
    while i < len(terms):
        for size in range(min(MAX_PHRASE, len(terms) - i), 0, -1):
            searched = synonyms.get(tuple(stems[i : i + size]))
            if searched is not None:
                typed = " ".join(terms[i : i + size])
                if searched != typed:
                    used.append(Used(typed=typed, searched=searched))
                out.append(searched)
                i += size
                break
        else:
            out.append(terms[i])
            i += 1
    return (" ".join(out), tuple(used)) if used else (q, ())
