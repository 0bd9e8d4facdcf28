"""A meal in one sentence -> the items it names (issue 39.3, pure).

    "2 eggs and a slice of toast with butter" -> "2 eggs", "a slice of toast", "butter"
    "a bowl of mac and cheese and an apple"   -> "a bowl of mac and cheese", "an apple"
    "salt and pepper"                         -> "salt", "pepper"

The text is cut in two passes. Hard cuts always divide: commas (not a decimal comma),
semicolons, colons, full stops (not a decimal point), new lines, "+", "then", "also",
and "plus" unless it carries a composite amount ("3 tbsp plus 2 tsp butter": the
parser sums it). Soft cuts divide unless the words on either side make a dish the
catalogue names: "and" ("&", "n"), "with" ("w/"). An "and" inside an amount ("one and a
half cups") is no cut at all. A piece after a comma holding only qualifiers ("chicken,
grilled") stays with its item, as the parser reads it.

Amounts written as words stay with their item: the parser reads them ("two eggs",
"half a cup of rice", "a glass of milk"; catalogue.analysis.parser.NUMBER_WORDS,
catalogue.analysis.units). What a diary says around the food is left out: "I had",
"ate", "for breakfast", "Lunch:".

Whether a soft cut joins a dish is asked of the catalogue, not of a list: the food
words on its left, the joining word, the food words on its right (``Join.pattern``)
must begin the name of a reference (not branded) food of the market, in either order
for "and" ("rice and beans" is "Beans and rice, with meat"); a word of at most three
letters counts as a name's word it begins ("mac" of "Macaroni and cheese").
catalogue.analysis.dishes answers every join of a text in one query; this module only
says which joins to ask about (``joins``) and merges the answers (``items``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from catalogue.analysis.parser import FILLER, NUMBER_WORDS, QUALIFIERS, parse_line
from catalogue.analysis.units import UNITS
from catalogue.search import text
from catalogue.search.synonyms import rewrite

# The longest text one request may send (issue 39.3).
MAX_TEXT_LENGTH = 1000
_HARD = "|"
_SOFT = frozenset({"and", "with"})
_SPELLINGS = {"&": "and", "n": "and", "'n'": "and", "w/": "with", "+": "plus", "w": "with"}
_SEPARATORS = re.compile(r"[\n\r;:]|(?<!\d)[,.]|[,.](?!\d)|\+|&|\bw/")
_MEALS = "breakfast|brunch|lunch|dinner|supper|tea time|snack|snacks|dessert|elevenses"
_LEADING = re.compile(
    rf"^(?:(?:i|we|i've|ive|i'd|just|had|have|having|ate|eaten|eat|drank|drink|then"
    rf"|today|tonight|this morning|later|for (?:a |my )?(?:{_MEALS}))\s+)+",
    re.IGNORECASE,
)
_TRAILING = re.compile(
    rf"(?:\s+(?:for|at|with|as) (?:a |my )?(?:{_MEALS})|\s+(?:today|tonight|this morning))+$",
    re.IGNORECASE,
)
_ONLY_MEAL = re.compile(
    rf"^(?:(?:for|at|as) )?(?:a |my )?(?:{_MEALS}|today|tonight|this morning)$", re.IGNORECASE
)
_FRACTION = re.compile(r"\d+/\d+")
# A word this short may be cut from a name's word it begins: "mac" of "macaroni".
SHORT_WORD = 3


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece of the text between cuts; ``joiner``: the soft cut before it ("and",
    "with"), "" after a hard cut or at the start."""

    text: str
    joiner: str = ""


@dataclass(frozen=True, slots=True)
class Join:
    """The soft cut before piece ``index``: the food words of the pieces on either side
    and the joining word; ``terms``: the words a name of the dish holds, as typed and as
    the market's synonyms spell them (one of them, all its words); ``pattern``:
    the regular expression its ``search_stems`` (" macaroni and chees ... ") begin with."""

    index: int
    terms: tuple[tuple[str, ...], ...]
    pattern: str


def pieces(sentence: str) -> list[Piece]:
    """The pieces of ``sentence`` between every hard and soft cut, each without the diary
    words around its food ("I had", "for breakfast"); empty pieces left out."""
    marked = _SEPARATORS.sub(lambda m: f" {_mark(m.group())} ", sentence)
    words = [_SPELLINGS.get(w.lower(), w) for w in marked.split()]
    out: list[Piece] = []
    current: list[str] = []
    joiner: str | None = ""  # the cut before ``current``: "" hard, None: none yet
    comma = False

    def close(cut: str, after_comma: bool = False) -> None:
        nonlocal current, joiner, comma
        piece = _trimmed(" ".join(current))
        if piece and out and comma and _qualifier_only(piece):
            out[-1] = Piece(f"{out[-1].text}, {piece}", out[-1].joiner)  # "chicken, grilled"
            joiner = cut
        elif piece:
            out.append(Piece(piece, joiner or ""))
            joiner = cut
        else:
            joiner = "" if joiner == "" or cut == "" else cut  # ", and toast": hard
        current, comma = [], after_comma

    for i, word in enumerate(words):
        lower = word.lower()
        if word in (_HARD, ",") or lower in ("then", "also"):
            close("", after_comma=word == ",")
        elif lower in _SOFT and not _in_amount(words, i):
            close(lower)
        elif lower == "plus" and not _composite(current, words, i):
            close("")
        else:
            current.append(word)
    close("")
    return out


def joins(found: list[Piece], market: str | None = None) -> list[Join]:
    """The soft cuts of ``found`` that might join a dish: both sides name food words.
    ``market`` chooses the synonyms the words are read with."""
    out = []
    for index in range(1, len(found)):
        joiner = found[index].joiner
        if not joiner:
            continue
        left = parse_line(found[index - 1].text).food
        right = parse_line(found[index].text).food
        if not text.words(left) or not text.words(right):
            continue
        # The words as typed and as the market's synonyms spell them.
        sides = [
            (text.words(a), text.words(b))
            for a, b in dict.fromkeys(
                [(left, right), (rewrite(left, market)[0], rewrite(right, market)[0])]
            )
        ]
        terms = tuple(tuple(dict.fromkeys(a + b)) for a, b in sides)
        if joiner == "and":
            sides += [(b, a) for a, b in sides]
        names = "|".join(
            dict.fromkeys(
                " ".join([*map(_stem_pattern, a), joiner, *map(_stem_pattern, b)]) for a, b in sides
            )
        )
        out.append(Join(index, terms, f"^ (?:{names}) "))
    return out


def items(found: list[Piece], dishes: set[int]) -> list[str]:
    """The items of ``found``: a piece whose soft cut joins a dish (its index in
    ``dishes``) joined back to the item before it with its joining word."""
    out: list[str] = []
    for index, piece in enumerate(found):
        if index in dishes and out:
            out[-1] = f"{out[-1]} {piece.joiner} {piece.text}"
        else:
            out.append(piece.text)
    return out


def _stem_pattern(word: str) -> str:
    stem = re.escape(text.stem(word))
    return stem + r"\w*" if len(word) <= SHORT_WORD else stem


def _mark(separator: str) -> str:
    lower = separator.lower()
    if lower in ("&", "w/", "+"):
        return _SPELLINGS[lower]
    return "," if separator == "," else _HARD


def _trimmed(piece: str) -> str:
    piece = piece.strip(" ,")
    previous = None
    while piece != previous:
        previous = piece
        piece = _LEADING.sub("", piece + " ").strip(" ,")
        piece = _TRAILING.sub("", piece).strip(" ,")
    return "" if _ONLY_MEAL.match(piece) else piece


def _qualifier_only(piece: str) -> bool:
    words = [w.lower() for w in piece.split()]
    return bool(words) and all(w in QUALIFIERS or w in FILLER for w in words)


def _in_amount(words: list[str], i: int) -> bool:
    """Whether the "and" at ``words[i]`` joins an amount: "one and a half", "1 and 1/2"."""
    if words[i].lower() != "and" or i == 0:
        return False
    before = words[i - 1].lower()
    after = [w.lower() for w in words[i + 1 : i + 3]]
    number = before[:1].isdecimal() or (before in NUMBER_WORDS and before not in ("a", "an"))
    halves = ("half", "quarter", "third", "thirds")
    return number and (
        (after[:1] and (after[0] in halves or bool(_FRACTION.fullmatch(after[0]))))
        or (after[:1] in (["a"], ["an"]) and after[1:2] and after[1] in halves)
    )


def _composite(current: list[str], words: list[str], i: int) -> bool:
    """Whether the "plus" at ``words[i]`` carries a composite amount ("3 tbsp plus 2
    tsp"): a unit right before it and a number right after it."""
    unit = UNITS.get(current[-1].lower()) if current else None
    nxt = words[i + 1] if i + 1 < len(words) else ""
    return unit is not None and unit.kind != "count" and nxt[:1].isdecimal()
