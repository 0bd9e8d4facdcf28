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

from catalogue.analysis.units import CASED, PACKAGES, SIZES, UNITS, UNITS_2, Unit

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
TRAILING = _set("clove stalk sprig slice strip spear wedge head ear stick bulb rib")
# Words before the amount that leave it as it is: "About 2/3 cup", "Scant 1/2 tsp".
LEADING = _set(
    "about approximately approx around roughly nearly almost scant generous heaping heaped"
    " rounded level good"
)
# Words between the amount and its unit that only qualify the unit: "2 heaped tsp".
UNIT_QUALIFIERS = _set(
    "heaping heaped scant level generous rounded good big thin thick healthy fat"
)
# Count words that measure out what follows them, so a line may start with one: "Pinch
# of cayenne", "bunch mint", "small handful coriander" are one of it (issue 38.5).
MEASURING = PACKAGES | _set("pinch dash handful bunch sprig drop knob sheet head stick")
# Words that say what kind or state of food, never which food: a name's words before a
# comma that are all such continue after it ("750 g skinless, boneless chicken thighs").
QUALIFIERS = (
    STATES
    | PREPARATION
    | _set(
        "skinless boneless bone seedless unsalted salted sweetened unsweetened ripe firm very"
        " large small medium extra lean cold hot warm whole plain soft fine well day old"
        " red green yellow white black dark light thin thick young tender mature dry"
    )
)
_DIMENSIONS = _set("inch inches cm centimeter centimeters centimetre centimetres")


@dataclass(frozen=True, slots=True)
class Package:
    """The stated size of one package or item: ``amount`` ``unit`` as written (28 oz),
    a mass or volume unit (issue 38.4)."""

    amount: float
    unit: Unit

    @property
    def size(self) -> float:
        """Grams (a mass unit) or millilitres (a volume unit) in one package."""
        return self.amount * (self.unit.size or 0.0)

    def __str__(self) -> str:
        return f"{self.amount:g} {self.unit.name}"


@dataclass(frozen=True, slots=True)
class ParsedLine:
    """A line's parts. ``quantity``: the amount as written, never bounded (the weight
    is: catalogue.analysis.weighing.MAX_GRAMS); None: no amount written (``unit`` None
    too: a unit-less count such as "apple"); ``low``/``high``: a range's ends when the line
    gave one (``quantity`` is their mean); ``food``: the words to search, state words
    included; ``preparation``: words that choose the portion; ``package``: the stated
    size of one counted item ("2 28-ounce cans": 28 oz a can; "1 2-pound lobster": 2 lb
    the lobster), None when none was stated (issue 38.4); ``unreadable``: why the line's
    amount could not be read when it holds a number the grammar could not place (then
    ``quantity`` is None rather than a wrong amount), else None."""

    quantity: float | None
    unit: Unit | None
    food: str
    preparation: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    package: Package | None = None
    unreadable: str | None = None


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


@dataclass(frozen=True, slots=True)
class _Amount:
    """Where a line's amount was read: ``words[start:end]`` are the food's words, after
    ``prefix`` (words before the amount that name the food: "Juice of 1 lemon")."""

    quantity: float | None = None
    unit: Unit | None = None
    start: int = 0
    end: int | None = None
    low: float | None = None
    high: float | None = None
    package: Package | None = None
    prefix: tuple[str, ...] = ()


def _plain(words: list[str]) -> _Amount:
    """The amount and unit at the start, else at the end ("milk 250 ml"): a household
    measure's whole grammar, and a line's when nothing of ``_read`` applies."""
    found = _quantity(words)
    if found is not None:
        quantity, low, high, start = found
        measured = _unit(words, start)
        if measured is not None:
            return _Amount(quantity, measured[0], measured[1], None, low, high)
        return _Amount(quantity, None, start, None, low, high)
    if len(words) >= 2:
        for back in (2, 3):
            if len(words) > back and (found := _quantity(words[-back:])) is not None:
                measured = _unit(words[-back:], found[3])
                if measured is not None and measured[1] == back:
                    return _Amount(found[0], measured[0], 0, len(words) - back, found[1], found[2])
    return _Amount()


def _lower(words: list[str], i: int) -> str:
    return words[i].lower() if 0 <= i < len(words) else ""


def _sized(words: list[str], i: int) -> tuple[Package, int, bool] | None:
    """A stated size at ``words[i]``: an amount, an optional hyphen, a mass or volume
    unit ("28-ounce", "400 g"); the size, the index after it, and whether hyphenated."""
    if not _lower(words, i)[:1].isdecimal():
        return None
    found = _quantity(words[i:])
    if found is None:
        return None
    j = i + found[3]
    hyphen = _lower(words, j) == "-"
    measured = _unit(words, j + hyphen)
    if measured is None or measured[0].kind == "count":
        return None
    return Package(found[0], measured[0]), measured[1], hyphen


def _packaged(words: list[str]) -> _Amount | None:
    """A count of items of a stated size (issue 38.4): "2 28-ounce cans" (2 cans of 28
    oz), "1x 400 g can", "1 1/4-ounce envelope" (one envelope of 1/4 oz, not 1.25),
    "28 ounce can" (one can), "1 2-pound lobster" (one lobster of 2 lb), "4 8-ounce
    pieces swordfish". Without a count word after it the size must be hyphenated, and
    "1 1/2-pound" stays a mixed number."""
    first = _lower(words, 0)
    count = _number(first) if "/" not in first else None
    times = _lower(words, 1) == "x"  # "1x 400 g can", "0.5x 30 g pack"
    i = 1 + times
    readings = []
    if (count is not None and (times or count == int(count))) or first in ("a", "an", "one"):
        readings.append((1.0 if count is None else count, i))
    readings.append((1.0, 0))
    for count, i in readings:
        sized = _sized(words, i)
        if sized is None:
            continue
        package, k, hyphen = sized
        while _lower(words, k) in SIZES:
            k += 1
        unit = UNITS.get(_lower(words, k))
        counted = i > 0 or hyphen or (unit is not None and unit.name in PACKAGES)
        if unit is not None and unit.kind == "count" and unit.name not in SIZES and counted:
            return _Amount(count, unit, k + 1, package=package)  # "4 8-ounce pieces"
        mixed = i == 1 and "/" in words[1]
        if hyphen and not mixed:
            return _Amount(count, None, k, package=package)
    return None


def _line_unit(words: list[str], i: int) -> tuple[Unit, int] | None:
    """A line's unit at ``words[i]``: qualifiers before it left out ("2 heaped tsp",
    "4 thin slices"), "extra-large" a large, "medium-size" a medium, a hyphen before a
    mass or volume unit ("1 1/2-pound") (issue 38.5)."""
    j = i
    while _lower(words, j) in UNIT_QUALIFIERS and _unit(words, j + 1) is not None:
        j += 1
    if [_lower(words, j + k) for k in range(3)] == ["extra", "-", "large"]:
        j += 2
    hyphen = _lower(words, j) == "-"
    measured = _unit(words, j + hyphen)
    if measured is None or (hyphen and measured[0].kind == "count"):
        return None
    unit, end = measured
    if (
        unit.name in SIZES
        and _lower(words, end) == "-"
        and _lower(words, end + 1) in ("size", "sized")
    ):
        end += 2
    return unit, end


def _plus(words: list[str], amount: _Amount) -> _Amount:
    """A composite amount summed: "3 tablespoons plus 2 teaspoons" is 3 2/3 tbsp
    (issue 38.6); the parts must be of one kind (mass or volume)."""
    unit, i = amount.unit, amount.start
    if unit is None or unit.size is None or _lower(words, i) != "plus":
        return amount
    found = _quantity(words[i + 1 :])
    if found is None:
        return amount
    measured = _line_unit(words, i + 1 + found[3])
    if measured is None or measured[0].kind != unit.kind or measured[0].size is None:
        return amount
    total = (amount.quantity or 0) + found[0] * measured[0].size / unit.size
    return _Amount(total, unit, measured[1])


def _at_start(words: list[str]) -> _Amount | None:
    """The amount at the very start of a line, read as a line's (``_line_unit``)."""
    found = _quantity(words)
    if found is None:
        return None
    quantity, low, high, start = found
    if (size := _quantity(words[start:])) is not None and (
        dimension := _dimension(words, start + size[3])
    ):
        start = dimension  # "1 3-inch piece of ginger": one piece
    measured = _line_unit(words, start)
    if measured is None:
        return _Amount(quantity, None, start, None, low, high)
    return _plus(words, _Amount(quantity, measured[0], measured[1], None, low, high))


def _shifted(amount: _Amount, by: int, prefix: tuple[str, ...] = ()) -> _Amount:
    end = None if amount.end is None else amount.end + by
    return _Amount(
        amount.quantity, amount.unit, amount.start + by, end, amount.low, amount.high,
        amount.package, prefix,
    )  # fmt: skip


def _read(words: list[str]) -> _Amount:
    """A line's amount (issue 38.2-38.6): a count of sized packages; the amount at the
    start; after words that leave it as it is ("About 2/3 cup"); after what is taken of
    the food ("Juice of 1 lemon": the food is "juice lemon", one lemon's worth); a
    measuring word alone ("Pinch of cayenne": one pinch); a piece's dimension ("18-inch
    piece daikon": one piece); else a household measure's grammar."""
    found = _packaged(words)
    if found is None and not (words[:1] and words[0][:1].isdecimal() and _dimension(words, 1)):
        found = _at_start(words)
    if found is not None:
        return found
    lead = 0
    while _lower(words, lead) in LEADING:
        lead += 1
    if lead and (found := _at_start(words[lead:]) or _packaged(words[lead:])) is not None:
        return _shifted(found, lead)
    for k in range(1, min(5, len(words) - 1)):
        if _lower(words, k) in ("of", "from"):
            j = k + 1
            while _lower(words, j) in LEADING:
                j += 1
            found = _packaged(words[j:]) or _at_start(words[j:])
            if found is not None:
                return _shifted(found, j, tuple(words[:k]))
            break
    size = _lower(words, 0) in SIZES
    unit = UNITS.get(_lower(words, size))
    if unit is not None and unit.name in MEASURING and len(words) > 1 + size:
        return _Amount(1.0, unit, 1 + size + (_lower(words, 1 + size) == "of"))
    if words and words[0][:1].isdecimal() and (dimension := _dimension(words, 1)):
        measured = _line_unit(words, dimension)  # "18-inch piece daikon": one piece
        if measured is not None:
            return _Amount(1.0, measured[0], measured[1])
        return _Amount(1.0, None, dimension)
    return _plain(words)


def _dimension(words: list[str], i: int) -> int:
    """The index after a dimension's word at ``words[i]`` ("-inch", "cm"), else 0."""
    i += _lower(words, i) == "-"
    return i + 1 if _lower(words, i) in _DIMENSIONS else 0


def _qualifies(word: str) -> bool:
    """Whether ``word`` only qualifies a food: a state, preparation or kind word, an
    amount or unit, or an -ed or -less word ("skinless", "toasted")."""
    return (
        word in QUALIFIERS
        or word in FILLER
        or word in LEADING
        or word in UNITS
        or word == "-"
        or word[:1].isdecimal()
        or word.endswith("less")
        or (len(word) > 4 and word.endswith("ed") and not word.endswith(("eed", "ead")))
    )


def _continued(head: str, rest: list[str]) -> tuple[str, list[str]]:
    """The line's head grown over commas (issue 38.1): after a comma the name goes on
    when all before it only qualified the food ("750 g skinless, boneless chicken
    thighs", "2 cups toasted, chopped walnuts") and the next part names one; a composite
    amount's "plus" part joins too ("3 tablespoons, plus 2 teaspoons, butter")."""
    while rest:
        if not all(_qualifies(word.lower()) for word in tokens(head)):
            break
        nxt = tokens(rest[0])
        plus = [w.lower() for w in nxt[:1]] == ["plus"] and _quantity(nxt[1:]) is not None
        names = any(not _qualifies(word.lower()) for word in nxt)
        if not plus and (not names or _lower(nxt, 0) in ("or", "and", "to")):
            break
        if not plus and any(word[:1].isdecimal() for word in nxt):
            break
        head, rest = f"{head} {rest[0]}", rest[1:]
    return head, rest


def _boxed(head: str) -> Package | None:
    """The first parenthesised size of the line's head ("1 (14.5 oz) can": 14.5 oz),
    an amount and a mass or volume unit alone in it ("about" and "each" allowed)."""
    for match in PARENS.finditer(head):
        words = [w for w in tokens(match.group()[1:-1]) if w.lower() not in ("about", "each")]
        sized = _sized(words, 0)
        if sized is not None and sized[1] == len(words):
            return sized[0]
    return None


def _undimensioned(words: list[str]) -> list[str]:
    """``words`` without a dimension ("3-inch", "2 cm"): the size of a piece, no food."""
    out: list[str] = []
    for i, word in enumerate(words):
        nxt = _lower(words, i + 1 + (_lower(words, i + 1) == "-"))
        if word[:1].isdecimal() and nxt in _DIMENSIONS:
            continue
        if (word.lower() in _DIMENSIONS and out[-1:] in (["-"], [])) or (
            word.lower() in _DIMENSIONS and out and out[-1][:1].isdecimal()
        ):
            continue
        out.append(word)
    return out


@functools.lru_cache(maxsize=8192)  # pure; a food's measures repeat ("1 cup", "1 tbsp")
def parse_line(text: str, *, measure: bool = False) -> ParsedLine:
    """The parts of one ingredient line (see the module's grammar). Never raises: a line
    without food words has ``food == ""``. ``measure``: ``text`` is a household
    measure's description ("1 slice", "1 medium"), whose count word is never the food;
    a measure is read by the household grammar alone (``_plain``), as before issue 38."""
    segments = _COMMA.split(text)
    head, rest = segments[0], segments[1:]
    if not measure:
        head, rest = _continued(head, rest)
    words = tokens(head)
    amount = _plain(words) if measure else _read(words)
    quantity, unit, package = amount.quantity, amount.unit, amount.package
    named = [*amount.prefix, *words[amount.start : amount.end]]
    if not measure:
        named = _undimensioned(named)
    food: list[str] = []
    preparation: list[str] = []
    for word in named:
        lower = word.lower()
        if lower in PREPARATION:
            preparation.append(lower)
        elif lower not in FILLER and lower != "-":  # numbers stay: "2% milk"
            food.append(lower)
    trailing = UNITS.get(food[-1]) if food else None
    if (
        trailing is not None
        and not measure
        and (unit is None or (unit.name in SIZES and not package))
        and quantity is not None
        and len(food) >= 2
        and trailing.name in TRAILING
        and not all(_qualifies(word) for word in food[:-1])  # "4 whole cloves": cloves
    ):
        unit, food = trailing, food[:-1]  # "3 garlic cloves", "1 large garlic clove"
    for word in tokens(",".join(rest)):
        lower = word.lower()
        if lower in PREPARATION:
            preparation.append(lower)
        elif lower in STATES or (measure and lower not in FILLER):
            food.append(lower)  # a measure keeps every qualifier: "1 stalk, medium"
    if not (food or measure) and unit is not None and unit.kind == "count" and amount.start > 0:
        # "2 cookies": the count word is the food itself.
        food, unit, package = [words[amount.start - 1].lower()], None, None
    if not measure and package is None and unit is not None and unit.name in PACKAGES:
        package = _boxed(head)
    unreadable = None
    if not measure and quantity is None and any(word[:1].isdecimal() for word in words):
        unreadable = "The amount could not be read: write it first, as in '2 cups rice'."
    return ParsedLine(
        quantity=quantity,
        unit=unit,
        food=" ".join(food),
        preparation=tuple(dict.fromkeys(preparation)),
        low=amount.low,
        high=amount.high,
        package=package,
        unreadable=unreadable,
    )
