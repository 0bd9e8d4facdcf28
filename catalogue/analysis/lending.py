"""Which food lends its household measure to a food that has none (issue 38, point 1).

IFCT 2017 (market IN) publishes no household measures, FNDDS and most Foundation foods
come without them: "1 tbsp ghee" or "1 cup toor dal" cannot be weighed on their own
record. Two sources of a lender, both SR28 foods (market US, read whatever market the
analysis runs in), never an invented weight:

- ``EQUIVALENTS``, the table ``catalogue/data/measure_lenders.csv`` (its header says how
  it was written and checked): a food -> the SR28 food that is the same food under
  another name ("Ghee" -> "Butter oil, anhydrous", "Red gram, dal" -> "Pigeon peas (red
  gram), mature seeds, raw"). Read once per process; a lender is read with the line's
  other rows (catalogue.analysis.selectors), so it costs no read of its own.
- an SR28 food of the same kind (catalogue.analysis.choosing.same_kind: "Onion, big"
  and "Onions, raw"), among the candidates or found by an SR28 search of the line's
  words (catalogue.analysis.selectors._Lenders).

Either lends only to a food the line names (``names_food``): the search also finds a
food by a word of one of its local names or a corrected spelling ("butter" finds the
fish "Chakla", whose local name is "butter fish"; "water" finds "Water Chestnut"), and a
borrowed cup must not weigh a food nobody asked for.
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

from catalogue.analysis.parser import PARENS
from catalogue.search import text

TABLE = Path(__file__).resolve().parents[1] / "data" / "measure_lenders.csv"


@functools.cache
def equivalents() -> dict[str, str]:
    """The table: a borrower's public id -> its lender's public id."""
    with TABLE.open(newline="", encoding="utf-8") as handle:
        lines = (line for line in handle if line.strip() and not line.startswith("#"))
        return {
            row["borrower"].strip(): row["lender"].strip()
            for row in csv.DictReader(lines)
            if row["borrower"].strip() and row["lender"].strip()
        }


def lender_of(public_id: str) -> str | None:
    """The public id of the SR28 food whose measure ``public_id`` borrows, if any."""
    return equivalents().get(public_id)


def names_food(name: str, aliases: str, asked: str, *, equivalent: bool = False) -> bool:
    """Whether the line's words ``asked`` (after the market's synonyms) name the food
    ``name``: they hold every word of its name's first part ("Onion, big" for "2 medium
    onions"; "Red gram, dal" for "toor dal", searched as "red gram dal"; a variety's
    number left out: "Brinjal-1"), compared on stems or run together ("Beet root" for
    "beetroot"), or every word of one of its local names (``aliases``, the record's
    ``search_aliases``: "bhindi" of "Ladies finger"). A food the table gives an
    ``equivalent`` is named too when its name holds every word of the line ("Turmeric
    powder" for "turmeric", "Corn oil" for "oil"): the table vouches for the food."""
    wanted = _stems(asked)
    first = _words(PARENS.sub(" ", name).split(",")[0])
    phrases = [first, *(_words(alias) for alias in aliases.split("|"))]
    if any(phrase and (set(phrase) <= wanted or "".join(phrase) in wanted) for phrase in phrases):
        return True
    return equivalent and bool(wanted) and _stems(asked, joined=False) <= set(_words(name))


def _words(value: str) -> list[str]:
    return [text.stem(word) for word in text.words(value) if not word.isdigit()]


def _stems(asked: str, *, joined: bool = True) -> set[str]:
    words = text.words(asked)
    stems = {text.stem(word) for word in words}
    return stems | {text.stem("".join(words))} if joined else stems
