"""As bought or as eaten (issue 39.4): a line read as a plate is read, foods as eaten (pure).

``POST /v1/analysis`` takes ``"nutrition_type"``: ``cooking`` (the default for
``{"ingredients": [...]}``) reads a line as a recipe does, foods as bought ("1 cup brown
rice" is dry rice: catalogue.analysis.choosing alone); ``logging`` (the default for
``{"text": ...}``) reads it as a food diary does, foods as eaten: "150 g brown rice" on a
plate is cooked rice, "bacon" cooked bacon. This module reorders the candidates that
catalogue.analysis.choosing put in the order of meaning; catalogue.analysis.selectors
calls it in ``logging`` only.

A rule over the words of names, not a list of foods. SR28 names state the state ("Rice,
brown, long-grain, cooked", "Pork, cured, bacon, cooked, baked", "..., raw", "...,
dry", "..., unprepared"); FNDDS names foods as eaten. When the line states no state
(``states_asked``: raw, dry, uncooked, cooked, boiled, fried, ...):

- a food is eaten raw (``eaten_raw``) when FNDDS's plainest records of it among the
  candidates (the survey names fewest words away from the line) all state a bought
  state: "Apple, raw" before "Apple, baked"; milk and butter have no cooked form at all.
  Without a survey record among the candidates (market IN: IFCT names few cooked
  foods), no food is taken as eaten raw;
- otherwise the names stating a cooked state (``COOKED``: cooked, boiled, baked,
  roasted, grilled, broiled, pan-fried, microwaved, steamed, stewed, braised, poached,
  prepared) and no bought one (``BOUGHT``: "Apples, raw, without skin, cooked, boiled"
  is SR28's cooked apple made from the raw one) come first, when they are at most
  ``SLACK`` words further from the line than the best candidate, the cooked words not
  counted (``eaten_distance``): "Lentils, mature seeds, cooked, boiled" before "Lentils,
  raw"; among them, the nearest first, then the order of meaning. A name merely fried
  ("Beef, steak, country fried") or breaded is another dish, never promoted.

Then, whatever state the line states but a bought one, and unless it names fat
(``FAT_WORDS``), a survey record whose fat the survey assumed (``fat_assumed``: FNDDS's
recipes cook "Potato, boiled, NFS", "Mung beans, cooked" or "Barley" with fat their names
do not state, 2.7-6.9 g per 100 g against 0.1-0.4 g for the food boiled) comes after its
lean kin: the reference (SR28, Foundation) records of the same food cooked without fat
among the candidates, near the line (``SLACK``), the one most like it but for the fat
first (``lean_first``, issue 38). Read from the candidates' own fat, never from a list of
foods.

``wants_cooked`` says when the candidates hold no such cooked form, so the caller may
search the line's words with "cooked" once more (one search a food text at most).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

from catalogue.analysis.choosing import (
    CLAIMS,
    MADE_WITH,
    USUAL,
    USUAL_FORM,
    distance,
    first_stems,
    placed,
    tier,
)
from catalogue.analysis.parser import PARENS, STATES
from catalogue.search import text

NUTRITION_TYPES = ("cooking", "logging")
# Words of a name stating a cooked state (SR28 and FNDDS spellings); "pan-fried" is read
# as one word (``_name_states``), "fried" alone is not one: a fried food is another dish.
COOKED = frozenset(
    {
        "cooked", "boiled", "baked", "roasted", "grilled", "broiled", "pan-fried",
        "microwaved", "steamed", "stewed", "braised", "poached", "simmered", "prepared",
    }
)  # fmt: skip
# Words of a name stating the food as bought, not yet cooked.
BOUGHT = frozenset({"raw", "dry", "uncooked", "unprepared", "unheated", "purchased"})
# Words of a line stating the state it means: then the line is read as it says.
ASKED_STATES = frozenset(STATES | BOUGHT | COOKED | {"fried", "pan"})
# Words of a name stating a food bought raw: "dry" is not one ("Milk, dry" is a powder).
RAW = frozenset({"raw", "uncooked"})
# A cooked form may lie this many words further from the line than the best candidate.
SLACK = 2
# Cooking methods whose "dry" is not the bought state ("cooked, dry heat").
_HEAT = re.compile(r"\b(?:dry|moist)[ -]+heat\b|\bdry[ -]+roasted\b", re.I)
_PAN_FRIED = re.compile(r"\bpan[ -]+fried\b", re.I)
# "prepared with" names what a food is made with ("Tofu, hard, prepared with nigari": its
# coagulant), not a cooked state.
_PREPARED_WITH = re.compile(r"\bprepared\s+with\b", re.I)


# FNDDS's words for fat cooked into a food or skin eaten with it ("Sweet potato, baked,
# fat added", "Green peas, fresh, cooked with oil", "Chicken thigh, stewed, skin
# eaten"); not "no added fat", "fat not added in cooking", "skin not eaten".
_FAT_ADDED = re.compile(
    r"\bfat added\b|\bns as to fat\b(?! eaten)|\bwith (?:oil|butter|margarine|fat)\b"
    r"|\bskin eaten\b",
    re.I,
)
# Line words asking for such fat: then it is what the line means.
FAT_WORDS = frozenset({"oil", "butter", "margarine", "fat", "skin", "fried", "buttered"})


# Methods FNDDS cooks with fat when the respondent did not say ("Fish, cod, grilled" holds
# 2.8 g of fat, "Fish, cod, steamed" 0.5, the raw fish 0.7): a survey record naming one
# and not "no added fat" carries the survey's default fat.
_FAT_METHODS = frozenset({"baked", "broiled", "grilled", "roasted", "fried", "sauteed"})
_NO_FAT = re.compile(r"\bno (?:added )?fat\b|\bfat not added\b|\bwithout fat\b", re.I)


def fat_added(name: str, asked: str, data_type: str = "") -> bool:
    """Whether ``name`` states fat cooked into the food or its skin eaten, which a plain
    line does not ask for (issue 38: a plate's "80 g peas" is peas, not peas cooked
    with oil), or is a survey (FNDDS) record of a method the survey cooks with fat by
    default (``_FAT_METHODS``, unless it says "no added fat"): among forms as eaten
    equally near the line, those that do not first. Never when the line names fat
    (``FAT_WORDS``) or the method itself ("grilled salmon")."""
    words = set(text.words(asked))
    if FAT_WORDS & words:
        return False
    if _FAT_ADDED.search(name):
        return True
    if data_type != "survey" or _NO_FAT.search(name):
        return False
    methods = _FAT_METHODS & set(text.words(name))
    return bool(methods) and not methods & words


def states_asked(asked: str) -> bool:
    """Whether the line's food words ``asked`` state a state ("raw", "dry", "cooked",
    "fried", ...): then it is read as it says, in either nutrition type."""
    return any(word in ASKED_STATES for word in text.words(asked))


@functools.lru_cache(maxsize=65536)
def _name_states(name: str) -> tuple[frozenset[str], frozenset[str]]:
    """The cooked and the bought words ``name`` states ("pan-fried" as one word)."""
    plain = _PAN_FRIED.sub(" panfried ", _HEAT.sub(" ", _PREPARED_WITH.sub(" with ", name)))
    words = {"pan-fried" if w == "panfried" else w for w in text.words(plain)}
    return frozenset(words & COOKED), frozenset(words & BOUGHT)


def cooked(name: str) -> bool:
    """Whether ``name`` states a cooked state and no bought one."""
    done, bought = _name_states(name)
    return bool(done) and not bought


def bought(name: str) -> bool:
    """Whether ``name`` states a bought state (raw, dry, uncooked, unprepared)."""
    return bool(_name_states(name)[1])


def eaten_distance(name: str, asked: str, *, cut: bool = False) -> int:
    """``choosing.distance`` of ``name`` from the line ``asked``, its cooked words not
    counted (a plate's food is cooked unless it says otherwise), plus one for a form the
    food was bought in that the line does not state (``KEPT``: "Beef, ground, patties,
    frozen, cooked, broiled" is not a plate's "90 g ground beef")."""
    done, _ = _name_states(name)
    words = " ".join(sorted(w.replace("-", " ") for w in done))  # "pan fried"
    kept = bool(_kept(name) - set(text.words(asked)))
    return distance(name, f"{asked} {words}".strip(), cut=cut) + kept


# Forms a food is bought and kept in, which its cooked form may still state ("Peas,
# green, frozen, cooked, boiled"): a plate's plain line did not ask for them.
KEPT = frozenset({"frozen", "canned", "dried", "smoked", "toasted"})


@functools.lru_cache(maxsize=65536)
def _kept(name: str) -> frozenset[str]:
    return KEPT & frozenset(text.words(name))


def eaten_raw(foods: list[tuple[str, str]], asked: str, *, cut: bool = False) -> bool:
    """Whether the food ``asked`` is eaten raw: the survey (FNDDS) records among
    ``foods`` (``(name, data_type)``) nearest the line all state a bought state ("Apple,
    raw"; not "Beef, ground" beside "Beef, ground, raw"). False without survey records."""
    survey = [name for name, data_type in foods if data_type == "survey"]
    if not survey:
        return False
    far = {name: distance(name, asked, cut=cut) for name in survey}
    near = min(far.values())
    return all(bought(name) for name in survey if far[name] == near)


def eaten_form(name: str, data_type: str) -> bool:
    """Whether ``name`` is a food as eaten: it states a cooked state (``cooked``), or it
    is a survey (FNDDS) record stating no state at all ("Beef, steak, NFS", "Millet":
    FNDDS names foods as eaten)."""
    if cooked(name):
        return True
    return data_type == "survey" and not _stated(name)


def _stated(name: str) -> bool:
    done, bought_ = _name_states(name)
    return bool(done or bought_) or any(w in STATES for w in text.words(name))


@functools.lru_cache(maxsize=65536)
def _own(name: str) -> frozenset[str]:
    """Stems of ``name``'s words before what it is made with ("Rice, cooked, with milk"
    is rice)."""
    words = text.words(name)
    end = next((k for k, w in enumerate(words) if w in MADE_WITH), len(words))
    return frozenset(text.stem(w) for w in words[:end])


def _promoted(foods: list[tuple[str, str]], asked: str, cut: bool) -> list[int]:
    """Indexes of the forms as eaten to put first (see the module), nearest first, then
    those holding the line's words where a name names its food (``choosing.placed``),
    then cooked ones before survey ones stating no state, then in their order."""
    if not foods or states_asked(asked) or eaten_raw(foods, asked, cut=cut):
        return []
    best, best_type = foods[0]
    # The line's words the best candidate holds: a form as eaten holds them too, in
    # what it is, not in what it is made with ("Rice, cooked, with milk" is no milk).
    held = _own(best) & {text.stem(w) for w in text.words(asked)}
    bound = eaten_distance(best, asked, cut=cut) + SLACK
    near = {
        i: (
            eaten_distance(name, asked, cut=cut),
            fat_added(name, asked, data_type),
            placed(name, asked),
            not cooked(name),
            i,
        )
        for i, (name, data_type) in enumerate(foods)
        if tier(data_type) <= tier(best_type) and eaten_form(name, data_type) and held <= _own(name)
    }
    if not any(cooked(foods[i][0]) for i in near):
        return []  # nothing cooked to choose: the order of meaning stands
    return sorted((i for i, key in near.items() if key[0] <= bound), key=near.__getitem__)


def eaten_first(
    foods: list[tuple[str, str]],
    asked: str,
    *,
    cut: bool = False,
    values: Sequence[Mapping[str, float | None]] | None = None,
) -> list[int]:
    """Indexes of ``foods`` (``(name, data_type)`` in the order of meaning) in the order
    a plate means them: the cooked forms of the food first (see the module), the others
    after them in their order; unchanged when the line states a state or the food is
    eaten raw. Given each food's ``values`` per 100 g (``fat_g``, ``protein_g``,
    ``carbohydrate_g``), a survey record whose fat the survey assumed then comes after
    its lean kin (``lean_first``), whatever the line states but a bought state."""
    first = _promoted(foods, asked, cut)
    chosen = set(first)
    order = first + [i for i in range(len(foods)) if i not in chosen]
    return lean_first(order, foods, values, asked, cut=cut) if values is not None else order


# Preparations making a dish of the food, with what it is mashed with ("mashed potatoes":
# milk and butter); the parser keeps them out of the food's words, so its lean kin is
# not what the line means.
MASHED = frozenset({"mashed", "whipped"})
# A survey record's fat is assumed when it exceeds the most fat of its lean kin by both
# this many grams per 100 g and this factor: species, cuts and varieties differ by less
# among the kin a line's search finds ("Fish, salmon, steamed" 14.1 g is within SR28's
# cooked salmons, 4.3-13.4 g), a recipe's spoonful of oil by more ("Potato, boiled, NFS"
# 4.25 g against the boiled potatoes' 0.1 g).
FAT_MARGIN = 2.0
FAT_RATIO = 1.5
# Analysed reference records, which state how a food was cooked.
REFERENCE_TYPES = frozenset({"sr_legacy", "foundation"})
# Words a survey name qualifies its food with, which its kin need not hold: states,
# usual forms and FNDDS's "NFS", "NS as to ...".
_QUALIFYING = frozenset(STATES | BOUGHT | COOKED | USUAL | USUAL_FORM)
_CLAIM_STEMS = frozenset(text.stem(w) for w in CLAIMS)
# What the lean kin most like the survey record is read from, but for the fat.
_MAKEUP = ("protein_g", "carbohydrate_g")


@functools.lru_cache(maxsize=65536)
def _stems_of(name: str) -> frozenset[str]:
    return frozenset(text.stem(w) for w in text.words(name))


@functools.lru_cache(maxsize=65536)
def _food_stems(name: str) -> frozenset[str]:
    """Stems of the words of ``name``'s first two parts that name its food: not its
    state, usual form or FNDDS's "NFS" ("Potato, boiled, NFS" is potato)."""
    parts = PARENS.sub(" ", name).split(",")[:2]
    return frozenset(
        text.stem(w) for part in parts for w in text.words(part) if w not in _QUALIFYING
    )


def _lean(name: str, data_type: str) -> bool:
    """Whether ``name`` is a reference record of a food cooked with no fat it states
    ("Potatoes, boiled, cooked in skin, flesh, without salt"; not "..., pan-fried", "...,
    cooked with oil", nor a lighter version of the food, "Tortilla chips, low fat, baked
    without fat"). Cooked by a method: "prepared" alone names a recipe, whose fat is
    the recipe's ("Hummus, home prepared", "Potatoes, hash brown, home-prepared")."""
    if data_type not in REFERENCE_TYPES or not cooked(name) or _FAT_ADDED.search(name):
        return False
    if not _name_states(name)[0] - {"prepared"}:
        return False
    stems = _stems_of(name)
    return text.stem("fried") not in stems and not stems & _CLAIM_STEMS


def fat_assumed(
    foods: list[tuple[str, str]],
    values: Sequence[Mapping[str, float | None]],
    asked: str,
) -> dict[int, list[int]]:
    """The survey (FNDDS) records among ``foods`` whose fat the survey assumed, each with
    its lean kin (indexes of ``foods``): reference records of the same food cooked
    without fat (``_lean``) whose first part is the record's (compared on stems), holding
    the words naming its food, those of the line it holds and the state the line states
    ("Potatoes, boiled, cooked in skin, flesh" for "Potato, boiled, NFS"; not "Egg,
    whole, cooked, poached" for "Egg, yolk only, cooked", nor a baked potato for
    "mashed potatoes"); the record is a food as eaten (``eaten_form``) whose fat
    per 100 g exceeds the most of its kin's by ``FAT_MARGIN`` and ``FAT_RATIO`` both.
    Only among the candidates: the kin a line's search finds are the food's versions."""
    words = text.words(asked)
    wanted = {text.stem(w) for w in words}
    # The state the line states, which the kin state too ("mashed potatoes" is no
    # boiled potato's kin, "baked sweet potato" a baked one's).
    stated = {text.stem(w) for w in words if w in ASKED_STATES}
    lean = [
        i
        for i, (name, data_type) in enumerate(foods)
        if _lean(name, data_type) and values[i].get("fat_g") is not None
    ]
    found: dict[int, list[int]] = {}
    for i, (name, data_type) in enumerate(foods):
        fat = values[i].get("fat_g")
        if data_type != "survey" or fat is None or not eaten_form(name, data_type):
            continue
        held = _food_stems(name) | (_stems_of(name) & wanted) | stated
        first = first_stems(name)
        kin = [
            k for k in lean if first_stems(foods[k][0]) == first and held <= _stems_of(foods[k][0])
        ]
        most = max((values[k]["fat_g"] or 0.0 for k in kin), default=None)
        if most is not None and fat > most + FAT_MARGIN and fat > FAT_RATIO * most:
            found[i] = kin
    return found


def _makeup_gap(one: Mapping[str, float | None], other: Mapping[str, float | None]) -> float:
    """How far two foods' protein and carbohydrate per 100 g lie apart."""
    return sum(
        abs((one.get(key) or 0.0) - (other.get(key) or 0.0))
        for key in _MAKEUP
        if one.get(key) is not None and other.get(key) is not None
    )


def lean_first(
    order: list[int],
    foods: list[tuple[str, str]],
    values: Sequence[Mapping[str, float | None]],
    asked: str,
    *,
    cut: bool = False,
) -> list[int]:
    """``order`` (indexes of ``foods``) with each survey record whose fat the survey
    assumed (``fat_assumed``) after its lean kin: a plate's "150 g barley" or "200 g
    boiled potatoes" is the grain or the potato boiled, not FNDDS's recipe of it with
    fat the line did not name. Only a record and kin at most ``SLACK`` words further
    from the line than the first of ``order`` (``eaten_distance``); the kin nearest the
    line first, then the one most like the record but for its fat (protein and
    carbohydrate: the boiled potato's flesh, not its skin), then in their order.
    Unchanged when the line names fat (``FAT_WORDS``) or a bought state (raw, dry)."""
    if not order:
        return order
    if FAT_WORDS & set(text.words(asked)) or bought(asked):
        return order
    assumed = fat_assumed(foods, values, asked)
    if not assumed:
        return order
    far = {i: eaten_distance(foods[i][0], asked, cut=cut) for i in order}
    bound = far[order[0]] + SLACK
    place = {i: k for k, i in enumerate(order)}
    out: list[int] = []
    seen: set[int] = set()
    for i in order:
        if i in seen:
            continue
        if i in assumed and far[i] <= bound:
            kin = sorted(
                (k for k in assumed[i] if k not in seen and far[k] <= bound),
                key=lambda k: (far[k], _makeup_gap(values[k], values[i]), place[k]),
            )
            out.extend(kin)
            seen.update(kin)
        out.append(i)
        seen.add(i)
    return out


def bought_first(foods: list[tuple[str, str]], asked: str, *, cut: bool = False) -> list[int]:
    """Indexes of ``foods`` (in the order of meaning) in the order a recipe means them
    (``cooking``, issue 38.4): a recipe's ingredient is bought, so when the line states
    no state and the best candidate is a survey (FNDDS) record stating none (a food as
    eaten: "Pork, tenderloin" and "Italian sausage" are cooked, "Barley" is cooked
    barley), a reference food (SR28, Foundation) of it stating it is raw (``RAW``; not
    "dry": "Milk, dry" is a powder) comes first, nearest first: one whose first part
    names no more than the best's words ("Sausage, Italian, pork, raw"; not "Mustard
    greens, raw" for "Mustard"), holding what the best holds of the line's words outside
    parentheses (not "Pork, fresh, leg (ham), ..., raw" for "Ham"), no further from the
    line, "raw" not counted (not "Beef, tenderloin steak, raw" for "Beef, steak, NFS"):
    "1 lb pork tenderloin" is "Pork, fresh, loin, tenderloin, ..., raw". Unchanged
    otherwise: a survey record stating no state with no raw form near ("Olive oil",
    "Bread, white") is the food as bought too."""
    order = list(range(len(foods)))
    if not foods or states_asked(asked):
        return order
    best, best_type = foods[0]
    if best_type != "survey" or _stated(best):
        return order
    held = _own(best) & {text.stem(w) for w in text.words(asked)}
    bound = distance(best, asked, cut=cut)
    whole = {text.stem(w) for w in text.words(best)}
    near = {
        i: (distance(name, f"{asked} raw", cut=cut), i)
        for i, (name, data_type) in enumerate(foods)
        if data_type != "survey"
        and tier(data_type) == 0
        and _name_states(name)[1] & RAW
        and not cooked(name)
        and held <= _own(PARENS.sub(" ", name))
        and first_stems(name) <= whole
    }
    first = sorted((i for i, key in near.items() if key[0] <= bound), key=near.__getitem__)
    chosen = set(first)
    return first + [i for i in order if i not in chosen]


def wants_cooked(foods: list[tuple[str, str]], asked: str, *, cut: bool = False) -> bool:
    """Whether a plate's line ``asked`` may mean a cooked form the candidates ``foods``
    lack: it states no state, the best candidate states a bought one (raw, dry,
    unprepared: "Butter, salted" or "Salt, table" has no cooked form to look for), the
    food is not eaten raw, and no candidate is a cooked form near enough
    (``eaten_first`` would change nothing)."""
    if not foods or not bought(foods[0][0]) or states_asked(asked):
        return False
    if eaten_raw(foods, asked, cut=cut):
        return False
    return not _promoted(foods, asked, cut)
