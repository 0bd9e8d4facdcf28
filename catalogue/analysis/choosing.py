"""Which of the search's top foods a line means (pure).

The search ranks by relevance, then by its own quality and name length
(catalogue.search). A diary line names the usual form of a food: "2 eggs" are whole
eggs, not yolks; "1 cup whole milk" is "Milk, whole, ...", not "Milk, buttermilk, fluid,
whole". So among the candidates, the one whose name's first two parts (USDA names go
from general to particular: "Milk, whole, 3.25% milkfat") add the fewest words the line
did not ask for comes first; words naming the usual form (``USUAL``: whole, raw, white,
...) add nothing; nor does a state word (cooked, fried, toasted: ``parser.STATES``)
anywhere in the name that the line did not ask for ("white bread" is not toasted).
Ties keep the search's order, so the search decides everything else.
"""

from __future__ import annotations

from catalogue import text
from catalogue.analysis.parser import PARENS, STATES

USUAL = frozenset(
    {
        "whole", "raw", "fresh", "plain", "regular", "white", "granulated", "all", "purpose",
        "table", "ripe", "mature", "salted", "sweet", "fluid", "ground", "lean",
        # joining words of USDA names ("made from soy and wheat")
        "and", "or", "with", "without", "from", "made", "in", "of", "to", "for",
    }
)  # fmt: skip


def unasked(name: str, asked: str) -> int:
    """How many words of ``name``'s first two comma parts, and state words of the rest,
    neither ``asked`` (the line's food words, and its count word: "2 slices ham" asks
    for "Ham, sliced") nor ``USUAL`` hold, compared on stems."""
    wanted = {text.stem(word) for word in text.words(asked)}
    parts = PARENS.sub(" ", name).split(",")  # "(European type, such as ...)" is one part
    head = [w for w in text.words(",".join(parts[:2])) if not w.isdigit()]
    states = {w for w in text.words(",".join(parts[2:])) if w in STATES}
    extra = [w for w in head if w not in USUAL] + sorted(states - {"raw"})
    return sum(1 for word in extra if text.stem(word) not in wanted)


def by_meaning(foods: list[tuple[str, str]], asked: str) -> list[int]:
    """Indexes of ``foods`` (``(name, data_type)`` in the search's order): reference
    foods before branded ones (whose names are short product titles, "BAKING SODA",
    and whose one portion is a label's serving), each by ``unasked``, stable."""
    return sorted(
        range(len(foods)),
        key=lambda i: (foods[i][1] == "branded", unasked(foods[i][0], asked)),
    )
