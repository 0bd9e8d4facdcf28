"""The ranking code that migrations 0007, 0010, 0013, 0014 and 0015 run, frozen
(issue 37): ``catalogue.text.search_forms``, ``catalogue.ranking.quality``,
``variant_key`` and ``food_search_columns``, and ``catalogue.variants.refresh`` (its
whole-catalogue form, on the migration's connection), copied from catalogue/text.py,
ranking.py and variants.py as they stood at commit f461448.

A migration must do the same whenever it runs, so it does not import the live
modules, which change with the product (a new dish word, a new look-alike rule).
This module is never edited: a later migration that needs other ranking rules copies
them into a module of its own, as these five share this one. Like ``_fts.py``, its
name starts with ``_``, so Django does not take it for a migration.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

import Stemmer

# catalogue.nutrients.HEADLINES, their columns
HEADLINE_COLUMNS = (
    "energy_kcal", "protein_g", "fat_g", "saturated_fat_g", "carbohydrate_g", "sugars_g",
    "fiber_g", "cholesterol_mg", "sodium_mg", "potassium_mg", "calcium_mg", "iron_mg",
)  # fmt: skip

# --- catalogue.text ---------------------------------------------------------------------
_WORD = re.compile(r"[^\W_]+")
_STEMMER = Stemmer.Stemmer("english")
_SEGMENT = re.compile(r"[,;(]")
CLASS_HEADS = frozenset(
    {"nut", "seed", "spice", "fish", "beverag", "cereal", "chees", "crustacean", "mollusk",
     "alcohol beverag", "game meat"}
)  # fmt: skip


def words(text: str) -> list[str]:
    """The lowercase, accent-folded words of ``text``."""
    folded = text.casefold()
    if not folded.isascii():
        folded = unicodedata.normalize("NFKD", folded)
        folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _WORD.findall(folded)


def stem(word: str) -> str:
    return _STEMMER.stemWord(word)


def phrase_key(stems: list[str]) -> str:
    return " ".join(sorted(stems)) if len(stems) == 2 else " ".join(stems)


def search_forms(name: str) -> dict[str, str]:
    """``search_name``, ``search_stems`` and ``search_heads`` of a food named ``name``."""
    segments = [[stem(w) for w in words(s)] for s in _SEGMENT.split(name)]
    segments = [s for s in segments if s]
    heads: list[str] = []
    if segments:
        head = segments[0]
        second = segments[1] if len(segments) > 1 else []
        if len(head) <= 2:
            heads.append(phrase_key(head))
        if len(head) == 1:
            heads += [phrase_key(head + later) for later in segments[1:] if len(later) == 1]
        if " ".join(head) in CLASS_HEADS and 1 <= len(second) <= 2:
            heads.append(phrase_key(second))
    all_words = words(name)
    return {
        "search_name": f" {' '.join(all_words)} ",
        "search_stems": f" {' '.join(stem(w) for w in all_words)} ",
        "search_heads": "|" + "".join(f"{h}|" for h in dict.fromkeys(heads)),
    }


# --- catalogue.ranking ------------------------------------------------------------------
REFERENCE = frozenset({"foundation", "sr_legacy", "survey"})
THIN_PANEL = 6
BASIC_FORMS = frozenset({"raw", "nfs", "plain"})
IFCT = "ifct2017"
IFCT_VEGETABLE_GROUPS = frozenset(
    {"Other Vegetables", "Green Leafy Vegetables", "Roots and Tubers"}
)
_IFCT_FORMS = BASIC_FORMS | {"ripe"}
_IFCT_VEGETABLE_FORMS = _IFCT_FORMS - {"raw"}
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
COMBINING_WORDS = frozenset({"and", "with"})
_SEGMENTS = re.compile(r"[,;()]")
_VARIANT_STEPS = (("protein_g", 1.0), ("fat_g", 1.0), ("carbohydrate_g", 1.0))


def data_type_group(data_type: str) -> int:
    if data_type in REFERENCE:
        return 0
    if data_type in ("sub_sample", "agricultural_acquisition"):
        return 1
    return 2


def quality(*, data_type: str, name: str, headlines: Mapping[str, Any], category: str = "") -> int:
    """The food's ``rank_quality``, 0 (best) to 47."""
    capitals = any(ch.isalpha() for ch in name) and name == name.upper()
    dish, basic = typicality(name, data_type=data_type, category=category)
    measured = sum(1 for column in HEADLINE_COLUMNS if headlines.get(column) is not None)
    return (
        16 * data_type_group(data_type)
        + 8 * capitals
        + 4 * dish
        + 2 * (not basic)
        + (measured < THIN_PANEL)
    )


def typicality(name: str, *, data_type: str = "", category: str = "") -> tuple[bool, bool]:
    """(dish, basic) of a food name."""
    forms = BASIC_FORMS
    if data_type == IFCT:
        forms = _IFCT_VEGETABLE_FORMS if category in IFCT_VEGETABLE_GROUPS else _IFCT_FORMS
    dish = basic = False
    for i, segment in enumerate(_SEGMENTS.split(name)):
        held = words(segment)
        dish = dish or (i == 0 and not COMBINING_WORDS.isdisjoint(held))
        if " ".join(held) in forms and not dish:
            basic = True
        dish = dish or not DISH_WORDS.isdisjoint(held)
    return dish, basic


def variant_key(*, search_name: str, data_type: str, headlines: Mapping[str, Any]) -> str:
    """16 hex digits equal for look-alikes."""
    amounts = []
    for column, step in _VARIANT_STEPS:
        value = headlines.get(column)
        amounts.append("-" if value is None else f"{round(value / step) * step:g}")
    key = "\x1f".join((search_name.strip(), data_type, *amounts))
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def food_search_columns(
    *, name: str, data_type: str, headlines: Mapping[str, Any], category: str = ""
) -> dict[str, Any]:
    """Every stored search and ranking column of a food."""
    forms = search_forms(name)
    return forms | {
        "variant_count": 1,
        "rank_quality": quality(
            data_type=data_type, name=name, headlines=headlines, category=category
        ),
        "variant_key": variant_key(
            search_name=forms["search_name"], data_type=data_type, headlines=headlines
        ),
    }


# --- catalogue.variants -----------------------------------------------------------------
_GROUPS = """
    SELECT id, CASE WHEN row_number() OVER w = 1 THEN count(*) OVER w ELSE 0 END AS n
    FROM catalogue_food WHERE variant_key IS NOT NULL
    WINDOW w AS (PARTITION BY variant_key, market_id
                 ORDER BY coalesce(rank_quality, 63), source <> 'sr28', energy_kcal IS NULL, id
                 ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
"""


def refresh(connection) -> int:  # type: ignore[no-untyped-def]
    """Every food's ``variant_count`` from the ``variant_key`` groups, writing only the
    rows whose count changes; returns how many changed."""
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS catalogue_load_counts")
        cursor.execute(
            "CREATE TEMP TABLE catalogue_load_counts AS "
            f"SELECT g.id, g.n FROM ({_GROUPS}) g JOIN catalogue_food f ON f.id = g.id "
            "WHERE f.variant_count IS NULL OR f.variant_count <> g.n"
        )
        cursor.execute("SELECT EXISTS (SELECT 1 FROM catalogue_load_counts)")
        if not cursor.fetchone()[0]:
            cursor.execute("DROP TABLE catalogue_load_counts")
            return 0
        if connection.vendor == "postgresql":
            sql = (
                "UPDATE catalogue_food f SET variant_count = g.n FROM catalogue_load_counts g "
                "WHERE f.id = g.id"
            )
        else:
            sql = (
                "UPDATE catalogue_food SET variant_count = g.n FROM catalogue_load_counts g "
                "WHERE catalogue_food.id = g.id"
            )
        cursor.execute(sql)
        changed = cursor.rowcount
        cursor.execute("DROP TABLE catalogue_load_counts")
        return changed
