"""Ingredient lines as people write them -> quantity, unit, food words (pure).

    "1 1/2 cups chopped broccoli"  -> 1.5, cup, "broccoli", preparation ("chopped",)
    "200g chicken breast, grilled" -> 200, g, "chicken breast grilled"
    "2-3 cloves garlic"            -> 2.5 (range 2..3), clove, "garlic"
    "milk 250 ml"                  -> 250, ml, "milk" (a diary's order)

Grammar, left to right: an amount (integer, decimal, fraction ``1/2``, mixed ``1 1/2`` or
``1-1/2``, a unicode fraction ``½``, a word ``a``/``one``..``twelve``/``half``/``dozen``,
``one and a half``), optionally a range (``2-3``, ``2 to 3``, ``2 or 3``: their mean),
then a unit (catalogue.analysis.units: mass, volume or a count word, spaced or not:
``200g``), an optional ``of``, then the food. Parenthesised text is left out ("1 (15 oz)
can" is one can). After a comma only preparation and state words count ("broccoli,
chopped"; "salt, to taste" is salt).

Preparation words (chopped, sliced, ...) leave the food's words and choose the portion
("1 cup, chopped" before "1 cup"); state words (cooked, raw, boiled, ...) stay among the
food's words, so the search chooses the cooked or the raw food. A count word alone
("2 cookies") is the food, counted; one naming a part of a food (``TRAILING``: clove,
stalk, slice, ...) after it is its unit ("3 garlic cloves" is "3 cloves garlic").
``ingredient-parser-nlp`` 2.9.1 was weighed and not taken (tried 2026-11-25): it does
not run offline from its package (its first parse downloads NLTK's
``averaged_perceptron_tagger_eng`` from GitHub and fails without the network), its
import takes 1.7 s, and it labels the same fields this table does.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from catalogue.analysis.units import CASED, SIZES, UNITS, UNITS_2, Unit

_FRACTIONS = {
    "½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅖": "2/5",
    "⅗": "3/5", "⅘": "4/5", "⅙": "1/6", "⅚": "5/6", "⅛": "1/8", "⅜": "3/8", "⅝": "5/8",
    "⅞": "7/8",
}  # fmt: skip
_FRACTION_CHARS = re.compile("[" + "".join(_FRACTIONS) + "]")
PARENS = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_NUMBER_UNIT = re.compile(r"(\d)([^\W\d_])")
_TOKEN = re.compile(r"\d+(?:[.,]\d+)?(?:/\d+)?|[^\W\d_]+|-")
_COMMA = re.compile(r"(?<!\d),|,(?!\d)")  # not a decimal comma ("1,5 kg")
_NUMBER = re.compile(r"(\d+(?:[.,]\d+)?)(?:/(\d+))?")


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "half": 0.5, "quarter": 0.25, "dozen": 12, "couple": 2,
}  # fmt: skip
PREPARATION = _set(
    "chopped diced sliced minced grated shredded mashed crushed cubed halved quartered"
    " pitted peeled packed sifted melted softened beaten crumbled julienned pieces halves"
    " trimmed rinsed cut whipped chunks cubes wedges rings florets"
)
STATES = _set(
    "cooked raw boiled fried roasted baked grilled broiled steamed canned frozen dried"
    " drained toasted smoked poached scrambled braised stewed"
)
# Words that say nothing about which food: left out of the search.
FILLER = _set(
    "of the some fresh freshly organic about approximately approx to taste optional divided"
    " plus for garnish finely thinly coarsely roughly lightly loosely firmly heaping heaped"
    " level scant generous good pinch x and or into"
)
# Count words naming a part of a food, which may follow it: "3 garlic cloves" is "3
# cloves garlic". Not those naming a food of their own ("2 chocolate chip cookies").
TRAILING = _set("clove stalk sprig leaf slice strip spear wedge head ear")


@dataclass(frozen=True, slots=True)
class ParsedLine:
    """A line's parts. ``quantity``: the amount as written, never bounded (the weight
    is: catalogue.analysis.weighing.MAX_GRAMS); None: no amount written (``unit`` None
    too: a unit-less count such as "apple"); ``low``/``high``: a range's ends when the line
    gave one (``quantity`` is their mean); ``food``: the words to search, state words
    included; ``preparation``: words that choose the portion."""

    quantity: float | None
    unit: Unit | None
    food: str
    preparation: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None


def normalise(text: str) -> str:
    """NFC (``cafe`` + U+0301 is ``café``), unicode fractions as ``a/b`` (``1½`` -> ``1
    1/2``), dashes as ``-``, the fraction slash as ``/``, parenthesised text removed, a
    number and a word apart (``200g``)."""
    if not text.isascii():
        # NFC, not NFKC: NFKC would spell "1½" as "11", U+2044, "2".
        text = unicodedata.normalize("NFC", text)
    text = text.replace("\u2044", "/").replace("\u2013", "-").replace("\u2014", "-")
    text = _FRACTION_CHARS.sub(lambda m: f" {_FRACTIONS[m.group()]} ", text)
    text = PARENS.sub(" ", text)
    return _NUMBER_UNIT.sub(r"\1 \2", text)


def tokens(text: str) -> list[str]:
    """The numbers, words and dashes of ``text`` (``normalise``d). A word keeps the
    combining marks inside and after it (one NFC leaves, as in a decomposed accent with
    no precomposed letter, or Devanagari's vowel signs: ``दाल``), which ``\\w`` does not
    count as letters and would cut it at (issue 36.6)."""
    text = normalise(text)
    if text.isascii():
        return _TOKEN.findall(text)
    out: list[str] = []
    joins = -1  # where the last word ended, its marks included
    for match in _TOKEN.finditer(text):
        start, end = match.span()
        if match.group() == "-" or match.group()[0].isdecimal():  # a number or a dash
            out.append(match.group())
            continue
        while end < len(text) and unicodedata.category(text[end]).startswith("M"):
            end += 1
        if start == joins:  # a word after marks: the same word ("दाल": U+093E inside)
            out[-1] += text[start:end]
        else:
            out.append(text[start:end])
        joins = end
    return out


def _number(token: str) -> float | None:
    match = _NUMBER.fullmatch(token)
    if match is None:
        return None
    whole, denominator = match.groups()
    value = float(whole.replace(",", "."))
    if denominator is not None:
        if "." in whole or "," in whole or int(denominator) == 0:
            return None
        value /= int(denominator)
    return value


def _amount(words: list[str], i: int) -> tuple[float, int] | None:
    """The amount starting at ``words[i]`` and the index after it, or None."""
    if i >= len(words):
        return None
    token = words[i].lower()
    value = _number(token)
    if value is not None:
        i += 1
        # "1 1/2" and SR28's "1-1/2": a whole number and a proper fraction.
        for gap in ((), ("-",)):
            j = i + len(gap)
            if tuple(w for w in words[i:j]) == gap and j < len(words) and "/" in words[j]:
                part = _number(words[j])
                if part is not None and part < 1 and value == int(value):
                    return value + part, j + 1
        if i < len(words) and words[i].lower() == "dozen":
            return value * 12, i + 1
        return value, i
    if token not in NUMBER_WORDS:
        return None
    value, i = NUMBER_WORDS[token], i + 1
    nxt = words[i].lower() if i < len(words) else ""
    if token in ("a", "an") and nxt in ("half", "quarter", "dozen", "couple"):
        value, i = NUMBER_WORDS[nxt], i + 1
    elif token in ("half", "quarter") and nxt in ("a", "an"):
        i += 1  # "half a cup"
    elif nxt == "dozen":
        value, i = value * 12, i + 1
    # "one and a half", "1 and 1/2"
    if i < len(words) and words[i].lower() == "and":
        rest = _amount(words, i + 1)
        if rest is not None and rest[0] < 1:
            value, i = value + rest[0], rest[1]
    if i < len(words) and words[i].lower() == "of" and token in ("couple", "dozen"):
        i += 1
    return float(value), i


def _unit(words: list[str], i: int) -> tuple[Unit, int] | None:
    if i >= len(words):
        return None
    if words[i] in CASED:
        return CASED[words[i]], i + 1
    first = words[i].lower()
    if i + 1 < len(words) and (first, words[i + 1].lower()) in UNITS_2:
        return UNITS_2[(first, words[i + 1].lower())], i + 2
    unit = UNITS.get(first)
    if unit is None:
        return None
    if unit.name in SIZES and i + 1 < len(words):
        bigger = UNITS.get(words[i + 1].lower())
        if bigger is not None and bigger.kind == "count" and bigger.name not in SIZES:
            return bigger, i + 2  # "1 large can": the can
    return unit, i + 1


def _quantity(words: list[str]) -> tuple[float, float | None, float | None, int] | None:
    """``(quantity, low, high, index after)`` of the amount or range at the start."""
    first = _amount(words, 0)
    if first is None:
        return None
    value, i = first
    if i < len(words) and words[i].lower() in ("-", "to", "or"):
        second = _amount(words, i + 1)
        if second is not None and second[0] > value and words[i + 1].lower() not in ("a", "an"):
            return (value + second[0]) / 2, value, second[0], second[1]
    return value, None, None, i


@functools.lru_cache(maxsize=8192)  # pure; a food's measures repeat ("1 cup", "1 tbsp")
def parse_line(text: str, *, measure: bool = False) -> ParsedLine:
    """The parts of one ingredient line (see the module's grammar). Never raises: a line
    without food words has ``food == ""``. ``measure``: ``text`` is a household
    measure's description ("1 slice", "1 medium"), whose count word is never the food."""
    head, _, tail = _COMMA.sub("\x00", text, count=1).partition("\x00")
    words = tokens(head)
    quantity = low = high = None
    unit = None
    start, end = 0, len(words)
    found = _quantity(words)
    if found is not None:
        quantity, low, high, start = found
        measured = _unit(words, start)
        if measured is not None:
            unit, start = measured
    elif len(words) >= 2:  # "milk 250 ml", "chicken breast 200g"
        for back in (2, 3):
            if len(words) > back and (found := _quantity(words[-back:])) is not None:
                measured = _unit(words[-back:], found[3])
                if measured is not None and measured[1] == back:
                    quantity, low, high, _ = found
                    unit, end = measured[0], len(words) - back
                    break
    food: list[str] = []
    preparation: list[str] = []
    for word in words[start:end]:
        lower = word.lower()
        if lower in PREPARATION:
            preparation.append(lower)
        elif lower not in FILLER and lower != "-":  # numbers stay: "2% milk"
            food.append(lower)
    trailing = UNITS.get(food[-1]) if food else None
    if (
        trailing is not None
        and not measure
        and unit is None
        and quantity is not None
        and len(food) >= 2
        and trailing.name in TRAILING
    ):
        unit, food = trailing, food[:-1]  # "3 garlic cloves", "2 celery stalks"
    for word in tokens(tail):
        lower = word.lower()
        if lower in PREPARATION:
            preparation.append(lower)
        elif lower in STATES or (measure and lower not in FILLER):
            food.append(lower)  # a measure keeps every qualifier: "1 stalk, medium"
    if not (food or measure) and unit is not None and unit.kind == "count" and start > 0:
        # "2 cookies": the count word is the food itself.
        food, unit = [words[start - 1].lower()], None
    return ParsedLine(
        quantity=quantity,
        unit=unit,
        food=" ".join(food),
        preparation=tuple(dict.fromkeys(preparation)),
        low=low,
        high=high,
    )
