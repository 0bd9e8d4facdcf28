"""What ranks a food among equal matches, what makes two foods look-alikes, and
per-serving amounts (docs/catalogue.md, "Relevance"). Pure: no database.

``quality`` is stored per food (``Food.rank_quality``, copied into the phrase index) and
orders foods of the same relevance class, lower first:

   16 x data-type group   0 reference: foundation, sr_legacy (and SR28), survey (FNDDS)
                          1 other lab data: sub_sample, agricultural_acquisition
                          2 branded, and anything else: the IFCT's foods, which so
                            follow the USDA's reference foods of their match class in
                            a search over every market (docs/catalogue.md, "Quality")
  + 8 if the name is in capitals only ("BANANA": a product label, not a description)
  + 4 if a word of the name makes the food a dish, a substitute or a flavoured variant
      of it (``DISH_WORDS``: "Rice, fried", "Tea, bubble", "Zucchini, pickled",
      "Bacon, meatless", "Steak sauce"), or its head joins foods with "and" or "with"
      (``COMBINING_WORDS``: "Rum and cola", "Chili with beans")
  + 2 unless the name marks the food's basic form: a segment "raw", "NFS" (USDA's "not
      further specified", the generic entry) or "plain", with no dish word before it
      ("Egg, whole, raw" before "Egg, deviled"; "Rice, fried, NFS" is not basic); in the
      IFCT, which names foods in Indian English, "ripe" marks it too, and "raw" does not
      in its vegetable groups, where it means unripe (``IFCT``, below)
  + 1 if the nutrient panel is thin (fewer than ``THIN_PANEL`` of the 12 headline
      nutrients measured)

so a reference food always precedes a branded one of the same class, a descriptive
name precedes an ALL-CAPS one of the same group, the food itself a dish made of it,
the basic form a prepared one, and a full panel a thin one; then the shorter name,
then the id. Without popularity data, "typical" is read from the name alone (and, for
the IFCT, its category).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from catalogue.nutrients import HEADLINES
from catalogue.search import text

REFERENCE = frozenset({"foundation", "sr_legacy", "survey"})
BRANDED = "branded"
THIN_PANEL = 6
BASIC_FORMS = frozenset({"raw", "nfs", "plain"})
# The IFCT names its foods in Indian English, where a fruit cooked as a vegetable is
# "raw" when unripe ("raw mango", "raw papaya") and "ripe" when eaten as a fruit. Its
# vegetable groups list "Mango, green, raw", "Papaya, raw" and "Jack fruit, raw" (every
# other vegetable there is raw without saying so), its Fruits group "Mango, ripe, kesar",
# "Papaya, ripe", "Jack fruit, ripe"; it lists fresh foods only, no canned or cooked
# ripe forms. So in the IFCT "ripe" marks the basic form, and in its vegetable groups
# "raw" does not ("Rice, raw, milled" and "Egg, poultry, whole, raw" keep theirs). USDA
# names are left as they are: "Tomatoes, red, ripe, cooked" is not a basic form.
IFCT = "ifct2017"
IFCT_VEGETABLE_GROUPS = frozenset(
    {"Other Vegetables", "Green Leafy Vegetables", "Roots and Tubers"}
)
_IFCT_FORMS = BASIC_FORMS | {"ripe"}
_IFCT_VEGETABLE_FORMS = _IFCT_FORMS - {"raw"}
# Words that make a food something else than the food it names: a dish or a sauce made
# with it, a substitute, a flavoured or novelty variant (docs/catalogue.md, "Relevance").
# Kept short and generic (kinds of dish, not foods): a food named by one of these words
# ("Soup, tomato" for q=soup) is compared only with others that hold one too.
DISH_WORDS = frozenset(
    {"salad", "soup", "stew", "casserole", "sandwich", "pie", "cake", "sauce", "gravy",
     "dip", "spread", "pudding", "curry", "fried", "bubble", "meatless", "imitation",
     "substitute", "vegetarian", "babyfood", "flavored", "pickled", "candied", "dessert",
     "smoothie", "dressing", "loaf", "nuggets", "patty", "burger", "pizza", "taco",
     "burrito", "lasagna", "muffin", "cookie", "cookies", "frosting", "topping", "filling",
     "mix", "restaurant", "fast", "kids", "sweetened", "syrup", "snack", "snacks",
     "teriyaki", "tartare", "stroganoff", "parmigiana", "kabob", "fajita", "enchilada",
     "quesadilla"}
)  # fmt: skip
# A head (the name's first segment) joining foods with one of these names a combination
# or a food prepared with another: "Rum and cola", "Peas and carrots", "Macaroni and
# cheese", "Beef steak with onions", "Chili with beans" are dishes.
COMBINING_WORDS = frozenset({"and", "with"})
_SEGMENTS = re.compile(r"[,;()]")
# Look-alikes: same words, same data type, and these amounts per 100 g equal once
# rounded to the step. Energy is left out: it follows from the macronutrients (4/9/4
# kcal per g), and on product labels it is what differs between copies of one product
# (one record without it, "357" beside "361" from a label rounded per serving).
_VARIANT_STEPS = (("protein_g", 1.0), ("fat_g", 1.0), ("carbohydrate_g", 1.0))


def data_type_group(data_type: str) -> int:
    """0 the USDA's reference data, 1 other lab data, 2 branded and anything else (the
    IFCT's ``ifct2017``, see the module)."""
    if data_type in REFERENCE:
        return 0
    if data_type in ("sub_sample", "agricultural_acquisition"):
        return 1
    return 2


def quality(*, data_type: str, name: str, headlines: Mapping[str, Any], category: str = "") -> int:
    """The food's rank among foods of equal relevance, 0 (best) to 47 (see the module).
    ``headlines`` maps the headline columns (``energy_kcal``, ...) to amounts or None;
    ``category`` is the food's category name (read for the IFCT's groups only)."""
    capitals = any(ch.isalpha() for ch in name) and name == name.upper()
    dish, basic = typicality(name, data_type=data_type, category=category)
    measured = sum(1 for h in HEADLINES if headlines.get(h.column) is not None)
    return (
        16 * data_type_group(data_type)
        + 8 * capitals
        + 4 * dish
        + 2 * (not basic)
        + (measured < THIN_PANEL)
    )


def typicality(name: str, *, data_type: str = "", category: str = "") -> tuple[bool, bool]:
    """(dish, basic) of a food name: whether a word of it is a ``DISH_WORDS`` word or its
    head joins foods (``COMBINING_WORDS``: "Rum and cola"), and whether a segment marks
    the basic form (``BASIC_FORMS``) with no dish word in the segments before it ("Rice,
    white, cooked, NFS": basic; "Rice, fried, NFS": a dish, not basic). An IFCT food
    (``data_type``) is read in Indian English (``IFCT``, above): "ripe" marks its basic
    form, and "raw" does not where ``category`` is one of its vegetable groups."""
    forms = BASIC_FORMS
    if data_type == IFCT:
        forms = _IFCT_VEGETABLE_FORMS if category in IFCT_VEGETABLE_GROUPS else _IFCT_FORMS
    dish = basic = False
    for i, segment in enumerate(_SEGMENTS.split(name)):
        held = text.words(segment)
        dish = dish or (i == 0 and not COMBINING_WORDS.isdisjoint(held))
        if " ".join(held) in forms and not dish:
            basic = True
        dish = dish or not DISH_WORDS.isdisjoint(held)
    return dish, basic


def variant_key(*, search_name: str, data_type: str, headlines: Mapping[str, Any]) -> str:
    """16 hex digits equal for foods a person cannot tell apart in a list: the same
    words (case and punctuation aside), the same data type (SR28 and the FDC table's
    SR Legacy rows are both ``sr_legacy``), and the same protein, fat and carbohydrate
    per 100 g once rounded to 1 g (``_VARIANT_STEPS``; energy, which follows from them,
    is left out: a copy of a branded product without it, or with a label's rounding of
    it, is still the same product)."""
    amounts = []
    for column, step in _VARIANT_STEPS:
        value = headlines.get(column)
        amounts.append("-" if value is None else f"{round(value / step) * step:g}")
    key = "\x1f".join((search_name.strip(), data_type, *amounts))
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def ranking_columns(
    *,
    name: str,
    data_type: str,
    headlines: Mapping[str, Any],
    search_name: str,
    category: str = "",
) -> dict[str, Any]:
    """The stored ranking columns of a food: ``rank_quality``, ``variant_key`` and
    ``variant_count`` 1 (shown on its own until ``catalogue.search.variants.refresh`` groups
    it, which then only rewrites the foods of groups of two or more)."""
    return {
        "variant_count": 1,
        "rank_quality": quality(
            data_type=data_type, name=name, headlines=headlines, category=category
        ),
        "variant_key": variant_key(
            search_name=search_name, data_type=data_type, headlines=headlines
        ),
    }


def food_search_columns(
    *, name: str, data_type: str, headlines: Mapping[str, Any], category: str = ""
) -> dict[str, Any]:
    """Every stored search and ranking column of a food (``search_name``,
    ``search_stems``, ``search_heads``, ``rank_quality``, ``variant_key``): what the
    loader, the factories and migrations write, from this one function. ``category``
    is the food's category name ("" for none)."""
    forms = text.search_forms(name)
    return forms | ranking_columns(
        name=name,
        data_type=data_type,
        headlines=headlines,
        search_name=forms["search_name"],
        category=category,
    )
