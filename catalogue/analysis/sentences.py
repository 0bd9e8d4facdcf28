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
"ate", "for breakfast", "Lunch:", "lunch was".

Whether a soft cut joins a dish is asked of the catalogue, not of a list: a reference
(not branded) food of the market must be named after the words around the cut, the
joining word between them, at the start of its name ("Macaroni and cheese, frozen
entree") or, for "and", of a part after a comma ("Restaurant, family style, spaghetti
and meatballs", "SWANSON, Chicken and Dumplings"): the food words on the left (or its
last word alone: "a grilled ham and cheese sandwich" is named by "Ham and cheese loaf")
and the first food word on the right; for "and" also both sides the other way round, at
the start only ("rice and beans" is "Beans and rice, with meat"). After a comma a
"with" only qualifies the name's head ("Cookie, oatmeal, with raisins"), and the words
of the reverse order list a dish's parts ("Taco with beef, cheese and lettuce"). A word
matches a name's word it begins, to within its stem ("mac" begins "Macaroni", "jelly"
is "jelly" or "jellies"). No name holds "salt and pepper" as a dish, so they are two.
catalogue.analysis.dishes answers every join of a text in one query; this module only
says which joins to ask about (``joins``) and merges the answers (``items``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
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
    rf"|today|tonight|this morning|later|for (?:a |my )?(?:{_MEALS})"
    rf"|(?:{_MEALS}) (?:was|were|is))\s+)+",
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
# A word of at least this many letters matches a name's word it begins ("mac"): a
# shorter one only itself, so no probe of the dish lookup reads half the catalogue.
PREFIX_FROM = 3
# At most this many distinct soft cuts of one text are asked about (a diary's sentence
# holds a few); later ones divide. Bounds a 1,000-character text's dish lookup.
MAX_JOINS = 20


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece of the text between cuts; ``joiner``: the soft cut before it ("and",
    "with"), "" after a hard cut or at the start."""

    text: str
    joiner: str = ""


@dataclass(frozen=True, slots=True)
class Join:
    """The soft cut before piece ``index``; ``terms``: the words a name of the dish holds,
    one tuple per way of reading the cut (a name holds all the words of one of them);
    ``pattern``: the regular expression (case aside) the name matches, those words and
    the joining word at its start or after a comma ("Macaroni and cheese, frozen
    entree", "Restaurant, family style, spaghetti and meatballs")."""

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
    """The soft cuts of ``found`` that might join a dish: both sides name food words;
    ``market`` chooses the synonyms the words are read with. Of those, the cuts of the
    first ``MAX_JOINS`` distinct readings (a reading repeated costs nothing more)."""
    out: list[Join] = []
    asked: set[str] = set()
    for index in range(1, len(found)):
        joiner = found[index].joiner
        if not joiner:
            continue
        left = parse_line(found[index - 1].text).food
        right = parse_line(found[index].text).food
        if not text.words(left) or not text.words(right):
            continue
        # The words as typed and as the market's synonyms spell them.
        spellings = dict.fromkeys(
            [(left, right), (rewrite(left, market)[0], rewrite(right, market)[0])]
        )
        # Each reading, and whether a name may hold it after a comma too (an "and" in
        # the typed order only: "Restaurant, family style, spaghetti and meatballs").
        phrases: dict[tuple[str, ...], bool] = {}
        for a, b in ((text.words(a), text.words(b)) for a, b in spellings):
            for phrase in ((*a, joiner, b[0]), (a[-1], joiner, b[0])):
                phrases[phrase] = joiner == "and"  # "peanut butter and jelly (sandwich)"
            if joiner == "and":
                phrases.setdefault((*b, joiner, *a), False)  # "Beans and rice" for rice and beans
        terms = tuple(tuple(w for w in phrase if w != joiner) for phrase in phrases)
        pattern = rf"^(?:{_names(phrases)})(?:\W|$)"
        if segments := [phrase for phrase, after_comma in phrases.items() if after_comma]:
            pattern += rf"|, (?:{_names(segments)})(?:\W|$)"
        if pattern not in asked and len(asked) == MAX_JOINS:
            continue
        asked.add(pattern)
        out.append(Join(index, terms, pattern))
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


def _names(phrases: Iterable[tuple[str, ...]]) -> str:
    """Alternatives of the names holding ``phrases``: their words in order, apart by
    spaces or hyphens (never a comma: "Cookie, oatmeal, with raisins" is no dish)."""
    return "|".join("[ -]+".join(map(_word_pattern, phrase)) for phrase in phrases)


def _word_pattern(word: str) -> str:
    """A name's word of which ``word`` is a form: it begins with what ``word`` and its
    stem share ("jell" of jelly, jellies; "dumpling" of dumplings); a word shorter than
    ``PREFIX_FROM`` letters is that word ("pb" begins nothing)."""
    if len(word) < PREFIX_FROM:
        return re.escape(word)
    stem = text.stem(word)
    size = next((i for i, (a, b) in enumerate(zip(word, stem, strict=False)) if a != b), None)
    shared = word[: min(len(word), len(stem)) if size is None else size] or word
    return re.escape(shared) + r"\w*"


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
