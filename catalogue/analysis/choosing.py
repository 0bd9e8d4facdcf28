"""Which of the search's top foods a line means (pure).

The search ranks by relevance, then by its own quality and name length
(catalogue.search.matching). A diary line names the usual form of a food: "2 eggs" are whole
eggs, not yolks; "1 cup whole milk" is "Milk, whole, ...", not "Milk, buttermilk, fluid,
whole". So among the candidates, the one whose name's first two parts (USDA names go
from general to particular: "Milk, whole, 3.25% milkfat") add the fewest words the line
did not ask for comes first; words naming the usual form (``USUAL``: whole, raw, white,
...) add nothing; nor does a state word (cooked, fried, toasted: ``parser.STATES``)
anywhere in the name that the line did not ask for ("white bread" is not toasted), nor
the second of two words offered as one choice ("Grapes, red or green"), nor
a form word (``FORMS``: "Squash, zucchini, baby", "Bread, ..., prepared from recipe":
a line that does not say so means the usual grown-up, bought food), nor a powder
("ground", "powder") when the line cuts the food ("1 tsp grated ginger" is the root).
Among equals, the name stating more usual-form words comes first (``USUAL_FORM``: "Tomatoes, red,
ripe, raw, year round average" before "Tomatoes, green, raw"; "Avocados, raw, all
commercial varieties" before "Avocados, raw, Florida"). Ties keep the search's order,
so the search decides everything else.

Reference foods come first, then branded ones, then FDC's lab records of single samples
(sub-sample, agricultural acquisition: "Kiwi, Region 1, n/a, Yes, Fiber - NFY0100RH"),
which no one means and which have no portions.
"""

from __future__ import annotations

import functools

from catalogue.analysis.parser import PARENS, STATES
from catalogue.search import text

USUAL = frozenset(
    {
        "whole", "raw", "fresh", "plain", "regular", "white", "granulated", "all", "purpose",
        "table", "ripe", "mature", "salted", "sweet", "fluid", "ground", "lean",
        # a fruit or vegetable is eaten with its skin unless the line says peeled
        "skin", "peel", "includes",
        # joining words of USDA names ("made from soy and wheat")
        "and", "or", "with", "without", "from", "made", "in", "of", "to", "for",
    }
)  # fmt: skip


# Words saying a name is a particular form of the food, counted anywhere in the name.
FORMS = frozenset({"baby", "recipe", "homemade"})
# Words saying a name is the usual form, or the average of the usual ones.
USUAL_FORM = frozenset(
    {"raw", "whole", "plain", "regular", "ripe", "fresh", "average", "commercial", "nfs"}
)
# Preparations that cut a whole food; a powder is not cut ("grated ginger").
CUTS = frozenset(
    {"chopped", "diced", "sliced", "minced", "grated", "shredded", "julienned", "cubed"}
)
POWDERS = frozenset({"ground", "powder", "powdered"})
# FDC's lab records of single samples: no one's food, no portions.
SAMPLES = frozenset({"sub_sample", "agricultural_acquisition"})


def unasked(name: str, asked: str, *, cut: bool = False) -> int:
    """How many words of ``name``'s first two comma parts, and state and form words of
    the rest, neither ``asked`` (the line's food words, and its count word: "2 slices
    ham" asks for "Ham, sliced") nor ``USUAL`` hold, compared on stems; ``cut``: the
    line cuts the food (``CUTS``), so a powder's word counts too."""
    wanted = _stems(asked)
    extra, powders, _ = _name_words(name)
    return sum(1 for stem in extra + (powders if cut else ()) if stem not in wanted)


@functools.lru_cache(maxsize=4096)
def _stems(asked: str) -> frozenset[str]:
    return frozenset(text.stem(word) for word in text.words(asked))


@functools.lru_cache(maxsize=65536)  # pure; the same foods come back line after line
def _name_words(name: str) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    """The stems ``unasked`` may count in ``name``: of its first two parts (but
    ``USUAL`` ones and the second of "X or Y"), of its state and form words; of its
    powder words (counted against a line that cuts); and its ``_usual`` count."""
    parts = PARENS.sub(" ", name).split(",")  # "(European type, such as ...)" is one part
    words = text.words(",".join(parts[:2]))
    # "red or green" offers one choice: the word after "or" adds nothing more
    head = [w for k, w in enumerate(words) if not w.isdigit() and words[k - 1 : k] != ["or"]]
    everywhere = text.words(name)
    states = {w for w in text.words(",".join(parts[2:])) if w in STATES}
    forms = {w for w in everywhere if w in FORMS} - set(head)
    powders = sorted({w for w in everywhere if w in POWDERS} - set(head) - states - forms)
    extra = [w for w in head if w not in USUAL] + sorted(states - {"raw"} | forms)
    usual = -sum(1 for w in set(everywhere) if w in USUAL_FORM)
    return tuple(text.stem(w) for w in extra), tuple(text.stem(w) for w in powders), usual


def _usual(name: str) -> int:
    """Among equals, more usual-form words first (negated, to sort first)."""
    return _name_words(name)[2]


def tier(data_type: str) -> int:
    """0 a reference food, 1 a branded one, 2 a lab sample's record."""
    return 2 if data_type in SAMPLES else 1 if data_type == "branded" else 0


def by_meaning(foods: list[tuple[str, str]], asked: str, *, cut: bool = False) -> list[int]:
    """Indexes of ``foods`` (``(name, data_type)`` in the search's order): reference
    foods before branded ones (whose names are short product titles, "BAKING SODA",
    and whose one portion is a label's serving), then samples' records, each by
    ``unasked`` then ``_usual``, stable."""
    return sorted(
        range(len(foods)),
        key=lambda i: (*meaning(*foods[i], asked, cut=cut), _usual(foods[i][0])),
    )


def meaning(name: str, data_type: str, asked: str, *, cut: bool = False) -> tuple[int, int]:
    """How well a food means the line (lower first): its ``tier``, its ``unasked``."""
    return tier(data_type), unasked(name, asked, cut=cut)


def same_kind(name: str, other: str) -> bool:
    """Whether two names are of the same food: the same first part (compared on stems,
    or run together: "Kiwi fruit, raw" and "Kiwifruit, green, raw"; not "Grapes" and
    "Grape leaves") and the same state words beyond it (not "Grapes, raw" and "Grapes,
    canned, ...")."""

    def kind(value: str) -> tuple[str, frozenset[str]]:
        parts = PARENS.sub(" ", value).split(",")
        first = text.words(parts[0])
        states = {w for w in text.words(",".join(parts[1:])) if w in STATES} - {"raw"}
        return text.stem("".join(first)), frozenset(states)

    return kind(name) == kind(other)
