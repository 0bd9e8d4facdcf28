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

The ingredient a line means (issue 38.4): a line naming no dish, product or other
version means the plain, usual food, so among reference foods

- a name qualifying the food by an animal the line did not ask for (``SPECIES``: "Bacon,
  turkey", "Turkey sausage", "Egg, duck", "Bacon, meatless") ranks after every name that
  does not (``QUALIFIED``); an animal standing alone as the name's first part is USDA's
  category ("Pork, cured, bacon", "Beef, flank, steak"), an ordinary word;
- a name holding a line's word only in what it is made with (after "with", "made",
  "prepared": "Puddings, banana, ..., prepared with 2% milk", "Egg burrito, with bacon")
  counts that word as one it adds: the food is another thing;
- among equals, the name holding the line's words where it names its food (its first two
  parts) comes before one holding them only further on ("Beef, steak" before "Pork,
  fresh, shoulder, ..., blade (steaks)"), and one holding them before one lacking them;
- so does a name of a form the line did not ask for (``FORMS``: baby, mini, from a
  recipe), so a size word ("1 medium zucchini") weighs the grown-up food.

These are rules over the words of names, not lists of rows: "the usual version" is the
name no animal qualifier narrows, whatever the food.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from catalogue.analysis.parser import PARENS, STATES
from catalogue.nutrients import HEADLINES
from catalogue.search import text

USUAL = frozenset(
    {
        "whole", "raw", "fresh", "plain", "regular", "white", "granulated", "all", "purpose",
        "table", "ripe", "mature", "salted", "sweet", "fluid", "ground", "lean",
        # IFCT's words for the usual grain and egg: milled (polished) rice, a hen's egg
        "milled", "poultry",
        # bacon and ham are cured: the word names their usual form
        "cured",
        # a fruit or vegetable is eaten with its skin unless the line says peeled
        "skin", "peel", "includes",
        # joining words of USDA names ("made from soy and wheat")
        "and", "or", "with", "without", "from", "made", "in", "of", "to", "for",
    }
)  # fmt: skip


# Words saying a name is a particular form of the food, counted anywhere in the name.
FORMS = frozenset(
    {
        "baby", "babyfood", "mini", "miniature", "recipe", "homemade", "blend",
        # a part of the animal no plain line means: "Pork, bacon, rendered fat, cooked",
        # "Turkey, whole, giblets, cooked"
        "rendered", "giblets", "drippings",
    }
)  # fmt: skip
# The classes SR28 names begin with before the food itself ("Pork, cured, bacon",
# "Crustaceans, shrimp, raw", "Beverages, coffee, brewed"): the class word adds nothing
# a line did not ask for. The search's class heads (catalogue.search.text.CLASS_HEADS:
# nuts, spices, fish, beverages, ...), and the animals and groups SR28 also files foods
# under. Only classes, never a food of its own ("Peaches, frozen" is peaches;
# "Puddings, banana, ..." a pudding).
CLASSES = frozenset({"pork", "beef", "lamb", "veal", "chicken", "turkey", "leavening agents"})
# Words of a claim narrowing a food to a special version ("Bacon, ..., reduced/low
# sodium", "..., lowfat"): a name stating one after its first two parts, where USDA
# names its food, is another version than the one a plain line means (issue 38.4),
# ranked like a form the line did not ask for. In the first two parts the claim names
# the food itself ("Milk, reduced fat, fluid, 2% milkfat"). Not "no": FNDDS's "no added
# fat" is the plain food as eaten ("Tomato sauce, canned, no salt added" stays near).
CLAIMS = frozenset({"low", "reduced", "lite", "lowfat", "nonfat"})
# Animals (and the absence of one) that qualify a food into another version of it:
# "Bacon, turkey", "Sausage, Italian, turkey", "Egg, duck", "Bacon, meatless" (issue 38.4);
# "quial" is how IFCT 2017 spells quail ("Egg, quial, whole, raw").
SPECIES = frozenset(
    {
        "pork", "beef", "veal", "lamb", "mutton", "goat", "turkey", "chicken", "duck",
        "goose", "quail", "quial", "bison", "buffalo", "venison", "elk", "rabbit", "ostrich", "emu",
        "meatless", "vegetarian", "vegan",
    }
)  # fmt: skip
# A name qualified by an unasked animal ranks after any name that is not: this many
# unasked words (a rank, never "one word more" for the analysis's lending).
QUALIFIED = 100
# Forms a food is bought in that a line names when it means them ("instant coffee",
# "garlic powder"), counted like a state word when a name states them further on
# ("Beverages, coffee, instant, regular, powder" is not "1 cup black coffee").
BOUGHT_AS = frozenset({"instant", "powder", "concentrate", "concentrated"})
# Words after which a name lists what the food is made with, not what it is.
MADE_WITH = frozenset({"with", "made", "prepared", "containing"})
# Words saying a name is the usual form, or the average of the usual ones.
USUAL_FORM = frozenset(
    {
        "raw", "whole", "plain", "regular", "ripe", "fresh", "average", "commercial", "nfs",
        "milled",
        # FNDDS's "NS as to fat eaten": the survey's default when the diary did not say
        "ns",
    }
)  # fmt: skip
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
    line cuts the food (``CUTS``), so a powder's word counts too. A first part naming
    one of USDA's classes (``CLASSES``: "Pork, cured, bacon", "Spices, cumin seed",
    "Beverages, coffee, brewed") names no other food, so it is not counted."""
    return _unasked(_name(name), _ask(asked), cut)


def distance(name: str, asked: str, *, cut: bool = False) -> int:
    """How far ``name`` lies from the food ``asked`` means (issue 38.4): its ``unasked``
    words, plus each asked word it holds only in what it is made with (``MADE_WITH``:
    "prepared with 2% milk" is a pudding), plus ``QUALIFIED`` when an unasked animal
    qualifies it (``qualified``) or it is a form the line did not ask for (``FORMS``:
    "Squash, zucchini, baby" for "1 medium zucchini")."""
    return _distance(_name(name), _ask(asked), cut)


def qualified(name: str, asked: str) -> bool:
    """Whether an animal the line did not ask for (``SPECIES``, compared on stems)
    narrows ``name`` to another version of the food: anywhere but as the whole first
    part, which is USDA's category ("Pork, cured, bacon" is bacon; "Bacon, turkey" and
    "Turkey bacon" are not the bacon a plain line means)."""
    return _qualified(_name(name), _ask(asked))


def placed(name: str, asked: str) -> int:
    """How many words ``asked`` (but state words, which USDA names put last) ``name``
    holds only after its first two parts, where a USDA name names its food; among
    foods that mean a line equally and hold as many of its words, fewer first ("Beef,
    steak, NFS" before "Pork, fresh, shoulder, (Boston butt), blade (steaks)")."""
    return _placed(_name(name), _ask(asked))


# English meat words and the animal they mean unless the line names another.
USUAL_ANIMAL = {
    "bacon": "pork", "ham": "pork", "sausage": "pork", "chop": "pork", "steak": "beef",
    "hamburger": "beef", "burger": "beef", "brisket": "beef", "jerky": "beef",
}  # fmt: skip
_USUAL_ANIMAL = {text.stem(word): text.stem(animal) for word, animal in USUAL_ANIMAL.items()}
_SPECIES_STEMS = frozenset(text.stem(word) for word in SPECIES)
_FORM_STEMS = frozenset(text.stem(word) for word in FORMS)
_CLAIM_STEMS = frozenset(text.stem(word) for word in CLAIMS)
_CLASS_HEADS = text.CLASS_HEADS | {" ".join(map(text.stem, c.split())) for c in CLASSES}
_BOUGHT_STEMS = frozenset(text.stem(word) for word in BOUGHT_AS)


class _Name(NamedTuple):
    """What meaning's rules read of a candidate's name, read once per name (every
    candidate of every line asks for them; the same foods come back line after line)."""

    stems: frozenset[str]  # every word's stem
    category: frozenset[str]  # its first part's, when that is one of USDA's classes
    extra: tuple[str, ...]  # ``unasked``'s countable stems of its first two parts and forms
    powders: tuple[str, ...]  # powder words, counted against a line that cuts
    usual: int  # usual-form words, negated (more first)
    states: frozenset[str]  # state words after its first two parts, but "raw"
    first: frozenset[str]  # its first part when that is one word (a category)
    own: frozenset[str]  # before the first ``MADE_WITH`` word
    made_with: frozenset[str]  # after it
    forms: frozenset[str]  # ``FORMS`` anywhere
    animals: frozenset[str]  # ``SPECIES`` anywhere
    claims: frozenset[str]  # ``CLAIMS`` after its first two parts
    head: frozenset[str]  # its first two parts' stems, where a USDA name names its food
    later: frozenset[str]  # every stem but states', for ``placed``


class _Asked(NamedTuple):
    """What meaning's rules read of a line's words, once per line."""

    wanted: frozenset[str]  # the stems of its words
    counted: frozenset[str]  # the same, with every bought form when it asks for one
    usual: frozenset[str]  # the animals its meat words mean ("bacon": pork)


@functools.lru_cache(maxsize=65536)
def _name(name: str) -> _Name:
    # Each part's words once, each word stemmed once: a cold name costs one pass (every
    # candidate of an analysis is read; most are new to a worker).
    words_of, folded = text.words_of, text.fold(name)
    raw_parts = [words_of(part) for part in folded.split(",")]
    everywhere = [w for part in raw_parts for w in part]
    unique = set(everywhere)
    stem = {w: _stem(w) for w in unique}
    # "(European type, such as ...)" is one part: parts are read without parentheses
    plain = [words_of(part) for part in PARENS.sub(" ", folded).split(",")]
    first_words = plain[0]
    head_words = plain[0] + plain[1] if len(plain) > 1 else first_words
    stems = [stem[w] for w in everywhere]
    first = [stem[w] for w in first_words]
    # "red or green" offers one choice: the word after "or" adds nothing more
    head = [w for k, w in enumerate(head_words) if k == 0 or head_words[k - 1] != "or"]
    head = [w for w in head if not w.isdigit()]
    head_set = set(head)
    states = {w for part in plain[2:] for w in part if w in STATES or w in BOUGHT_AS}
    forms = (unique & FORMS) - head_set
    powders = sorted((unique & POWDERS) - head_set - states - forms)
    extra = [stem[w] for w in head if w not in USUAL] + [stem[w] for w in sorted(forms)]
    cut = len(everywhere)
    if unique & MADE_WITH:
        cut = next(k for k, w in enumerate(everywhere) if w in MADE_WITH)
    all_stems = frozenset(stems)
    raw_head = raw_parts[0] + raw_parts[1] if len(raw_parts) > 1 else raw_parts[0]
    claims = {stem[w] for part in raw_parts[2:] for w in part}
    category = frozenset(first) if " ".join(first) in _CLASS_HEADS else _NONE
    t_extra = tuple(extra)
    t_powders = tuple(stem[w] for w in powders)
    usual = -len(unique & USUAL_FORM)
    f_states = frozenset(stem[w] for w in states if w != "raw")
    f_first = frozenset(first) if len(first_words) == 1 else _NONE
    own = frozenset(stems[:cut])
    made_with = frozenset(stems[cut:])
    forms_s = all_stems & _FORM_STEMS
    animals = all_stems & _SPECIES_STEMS
    f_claims = frozenset(claims) & _CLAIM_STEMS
    f_head = frozenset(stem[w] for w in raw_head)
    later = frozenset(stem[w] for w in unique - STATES)
    return _Name(
        all_stems,
        category,
        t_extra,
        t_powders,
        usual,
        f_states,
        f_first,
        own,
        made_with,
        forms_s,
        animals,
        f_claims,
        f_head,
        later,
    )


_NONE: frozenset[str] = frozenset()
# Stems of names' words: the catalogue's vocabulary is bounded (names only, never a
# line's words), so a plain dict is faster than stemming a word again.
_STEMS: dict[str, str] = {}


def _stem(word: str) -> str:
    stem = _STEMS.get(word)
    if stem is None:
        stem = _STEMS[word] = text.stem(word)
    return stem


@functools.lru_cache(maxsize=65536)
def _ask(asked: str) -> _Asked:
    wanted = _stems(asked)
    return _Asked(
        wanted=wanted,
        counted=wanted | _BOUGHT_STEMS if wanted & _BOUGHT_STEMS else wanted,  # "instant coffee"
        usual=frozenset(_USUAL_ANIMAL[s] for s in wanted if s in _USUAL_ANIMAL),
    )


def _unasked(name: _Name, asked: _Asked, cut: bool) -> int:
    counted, category = asked.counted, name.category
    # The state words after the name's food describe one state ("cooked, pan-fried"):
    # they add one word at most, none when the line asks for one of them.
    states = name.states
    stated = 0 if states & counted or states & category else min(1, len(states))
    words = name.extra + name.powders if cut else name.extra
    return stated + sum(1 for s in words if s not in counted and s not in category)


def _distance(name: _Name, asked: _Asked, cut: bool) -> int:
    wanted = asked.wanted
    tail = len((wanted & name.made_with) - name.own)
    claimed = bool(name.claims) and not name.claims & wanted
    other = bool(name.forms - wanted) or claimed or _qualified(name, asked)
    return _unasked(name, asked, cut) + tail + QUALIFIED * other


def _qualified(name: _Name, asked: _Asked) -> bool:
    if not name.animals:
        return False
    wanted, usual = asked.wanted, asked.usual
    # The animal a plain meat word means ("bacon" is pork's): with one, any other
    # qualifies ("Sausage, Italian, turkey", "Beef, bacon") and the usual one never does
    # ("Sausage, Italian, pork" is the Italian sausage a line means); without, an
    # animal qualifies unless it is the name's category ("Pork, cured, bacon").
    return any(
        s not in wanted and (s not in usual if usual else s not in name.first) for s in name.animals
    )


def _placed(name: _Name, asked: _Asked) -> int:
    return sum(1 for s in asked.wanted if s in name.later and s not in name.head)


@functools.lru_cache(maxsize=65536)  # lines' words and candidates' names
def _stems(asked: str) -> frozenset[str]:
    return frozenset(text.stem(word) for word in text.words(asked))


def _usual(name: str) -> int:
    """Among equals, more usual-form words first (negated, to sort first)."""
    return _name(name).usual


def tier(data_type: str) -> int:
    """0 a reference food, 1 a branded one, 2 a lab sample's record."""
    return 2 if data_type in SAMPLES else 1 if data_type == "branded" else 0


def by_meaning(
    foods: list[tuple[str, str]],
    asked: str,
    *,
    cut: bool = False,
    food: str | None = None,
    aliases: Sequence[str] | None = None,
) -> list[int]:
    """Indexes of ``foods`` (``(name, data_type)`` in the search's order): reference
    foods before branded ones (whose names are short product titles, "BAKING SODA",
    and whose one portion is a label's serving), then samples' records, each by
    ``distance``; then, given the line's ``food`` words as searched (not its count
    word), the name holding more of them ("toor dal", searched as "red gram dal", is
    "Red gram, dal" before "Red gram, whole", issue 38.7); then ``placed``, then
    ``_usual``, stable.

    ``aliases`` (each food's ``search_aliases``: SR28's common names, IFCT's local
    names): a food one of whose other names is the line's food words is the food the
    line names, as if the line had said its name ("8 oz spaghetti" is SR28's "Pasta,
    dry, enriched", whose common names are "macaroni product, spaghetti, ...";
    "1 cup chopped bok choy" its "Cabbage, chinese (pak-choi), raw"): measured against
    the line's words with the name's first part added (and its bought state, raw or dry,
    unless the line states a state, which the name must then state too: "cooked
    chickpeas" is not "Bengal gram, whole"), holding every word; after a food as near
    whose own name holds the words (IFCT's "Spinach" before "Agathi leaves", one of whose
    local names is spinach)."""
    wanted = _stems(food or "")
    ask = _ask(asked)
    core = alias_of(food or "")
    stated = wanted - core  # the line's state words: "cooked spaghetti"

    def key(i: int) -> tuple[int, ...]:
        data_type = foods[i][1]
        name = _name(foods[i][0])
        if core and aliases and core in _alias_stems(aliases[i]):
            # the food by its own name, as bought unless the line states a state, which
            # the name must then hold too ("cooked chickpeas" is not "Bengal gram, whole")
            bought = "" if stated else " raw dry uncooked"
            named = _ask(f"{asked} {_first_part(foods[i][0])}{bought}")
            missing = bool(stated - name.stems)
            distance_ = _distance(name, named, cut) + missing
            return (tier(data_type), distance_, -len(wanted), 0, 1, name.usual)
        held = len(wanted & name.stems) if wanted else 0
        distance_ = _distance(name, ask, cut)
        return (tier(data_type), distance_, -held, _placed(name, ask), 0, name.usual)

    return sorted(range(len(foods)), key=key)


def alias_words(food: str) -> str:
    """A line's food words that another name of a food must be, its state words left out
    ("cooked spaghetti" is named by the common name "spaghetti")."""
    return " ".join(w for w in text.words(food) if w not in STATES)


@functools.lru_cache(maxsize=65536)
def alias_of(food: str) -> frozenset[str]:
    """The stems of ``alias_words``."""
    return _stems(alias_words(food))


@functools.lru_cache(maxsize=65536)
def _alias_stems(search_aliases: str) -> frozenset[frozenset[str]]:
    """The stems of each of a food's other names (``Food.search_aliases``: " a | b ")."""
    return frozenset(_stems(alias) for alias in search_aliases.split("|") if alias.strip())


@functools.lru_cache(maxsize=65536)
def _first_part(name: str) -> str:
    """The words of ``name``'s first comma part, parentheses left out."""
    return " ".join(text.words(PARENS.sub(" ", name).split(",")[0]))


def first_stems(name: str) -> frozenset[str]:
    """Stems of ``name``'s first comma part, where a USDA name names its food."""
    return _stems(_first_part(name))


def meaning(name: str, data_type: str, asked: str, *, cut: bool = False) -> tuple[int, int]:
    """How well a food means the line (lower first): its ``tier``, its ``distance``
    (its ``unasked`` words, more for a food the line's words are only an ingredient of
    or an animal the line did not ask narrows; issue 38.4)."""
    return tier(data_type), distance(name, asked, cut=cut)


def complete_first(foods: list[dict[str, Any]]) -> list[int]:
    """Indexes of ``foods`` (rows with ``name`` and the headline nutrient columns, in the
    order of meaning): of foods of the same name and tier (several sources' records of
    one food), those reporting every headline nutrient (catalogue.nutrients.HEADLINES:
    energy, protein, fat, ...) first, the group where its first member stood; otherwise
    stable (issue 38.4: "Blackberries, raw" of Foundation, without energy, after SR28's
    record of the same name)."""

    # Equals: the same name and the same tier (a branded "OLIVE OIL" is never moved
    # before FNDDS's "Olive oil" for reporting more nutrients).
    def key(food: dict[str, Any]) -> tuple[str, int]:
        return food["name"].casefold(), tier(food.get("data_type", ""))

    groups: dict[tuple[str, int], list[int]] = {}
    for i, food in enumerate(foods):
        groups.setdefault(key(food), []).append(i)

    def missing(i: int) -> int:
        return sum(1 for h in HEADLINES if h.column in foods[i] and foods[i][h.column] is None)

    out: list[int] = []
    for i, food in enumerate(foods):
        group = groups.get(key(food))
        if group is not None and group[0] == i:
            out.extend(sorted(group, key=missing))
    return out


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


# Words describing how a food looks or is cut rather than which food it is: left out
# first when no reference food holds every word of a line ("ground cumin" is cumin).
DESCRIBING = frozenset(
    {
        "black", "white", "red", "green", "yellow", "brown", "golden", "dark", "light", "ripe",
        "cherry", "grape", "baby", "fillet", "fillets", "steak", "steaks", "piece",
        "pieces", "chunk", "chunks", "ground", "powder", "powdered", "crushed", "whole",
    }
)  # fmt: skip
# At most this many of a line's words are searched without one (bounded cost).
NARROWED_MAX_WORDS = 4


def narrowed(words: str, about: Callable[[list[str]], dict[str, int]]) -> list[str]:
    """The line's food ``words`` with one describing word left out, in the order they
    are tried when no reference food holds them all (issue 38.4: "cherry tomatoes",
    "salmon fillet", "black coffee", "ground cumin" name reference foods SR28 calls
    "Tomatoes, red, ripe, raw", "Fish, salmon, ...", "Beverages, coffee, brewed",
    "Spices, cumin seed"; their branded titles should not win for want of the word).
    Only a word that describes rather than names (``DESCRIBING``, state words) is left
    out, from the first; never the word naming the food (catalogue.search.text.named_word
    of ``about``: how many reference foods each word is about, asked only when a word
    may be left out; catalogue.search.matching.foods_about): "grape tomatoes" keeps
    tomatoes. A naming word is never left out: "chocolate
    chips" without either word is another food ("apple cider vinegar" without
    "vinegar" is a drink). Empty for one word, or more than ``NARROWED_MAX_WORDS``."""
    terms = text.words(words)
    if not 2 <= len(terms) <= NARROWED_MAX_WORDS:
        return []
    if not any(term in DESCRIBING or term in STATES for term in terms):
        return []
    counts = about(terms)
    named = text.named_word(terms, terms, counts)
    if not counts.get(terms[named], 0):
        named = -1  # no word names a reference food: any describing word may go
    return [
        " ".join(t for k, t in enumerate(terms) if k != i)
        for i, term in enumerate(terms)
        if i != named and (term in DESCRIBING or term in STATES)
    ]
