"""Suggestions as you type (``GET /v1/suggest``; docs/catalogue.md, "Suggestions"):
completions of what has been typed, best first, in the caller's market.

The last word typed is completed from the market's vocabulary (catalogue.search.spelling's
``catalogue_word`` on PostgreSQL, counted from the names on SQLite), preferring the
words reference foods hold, then the words more foods hold: ``chick`` gives "chicken"
(held by thousands of reference foods) before "chickpeas". After one or more whole
words, a completion must stand next to the word before it in some food's name (the
phrase index, catalogue/search/matching.py; on SQLite, the stems of the names): ``peanut b``
gives "peanut butter". Reads go through the read router like every catalogue read.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from django.db import connections

from catalogue.routing import catalogue_read_alias
from catalogue.search import spelling, text

LIMIT = 10
# Completions of the last word considered (best first) before the pair check.
CANDIDATES = 25
# Foods about a completion counted at most (its rank among completions).
HEADS_CAP = 100
# The phrase index's tiers (13 - relevance, catalogue/search/matching.py) of a food *about* the
# phrase: relevance 13, 10, 7, 4 (reference food, reference dish, branded, branded dish).
ABOUT_TIERS = (0, 3, 6, 9)
# Words held by this many reference foods are read first (migration 0013's partial index).
COMMON_REFERENCE = 5
# What a suggestion request reads at most: longer input is cut to its first words.
MAX_WORDS = 6
MAX_LENGTH = 100


@dataclass(frozen=True, slots=True)
class Suggestion:
    text: str


def food_suggest(*, q: str, market: str | None, limit: int = LIMIT) -> list[Suggestion]:
    """At most ``limit`` completions of ``q`` in ``market`` (None: every market), best
    first; none for input without a letter or digit. ``q`` is cut to ``MAX_LENGTH``
    characters and its last ``MAX_WORDS`` words, so any input is answered."""
    terms = text.words(q[:MAX_LENGTH])[-MAX_WORDS:]
    if not terms:
        return []
    *before, last = terms
    words = _ranked(before[-1] if before else None, _completions(last, market), market)
    prefix = " ".join(before)
    return [Suggestion(f"{prefix} {w}".strip()) for w in words[:limit]]


def _completions(prefix: str, market: str | None) -> list[str]:
    """Vocabulary words starting with ``prefix`` (the word itself included), reference
    foods' words first, then by how many foods hold them. The words of ``COMMON_REFERENCE``
    reference foods are read first (a small partial index: one letter typed does not
    sort every word starting with it); all words only when those are too few."""
    connection = connections[catalogue_read_alias()]
    if connection.vendor == "postgresql":
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        found: list[str] = []
        for least in (COMMON_REFERENCE, 0):
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT word FROM catalogue_word WHERE word LIKE %s AND foods > 0 "  # noqa: S608 (constants only)
                    "AND reference >= %s AND market_id = ANY(" + spelling.MARKETS_SQL + ") "
                    "GROUP BY word ORDER BY sum(reference) DESC, sum(foods) DESC, word "
                    "LIMIT %s",
                    (pattern, least, market, market, CANDIDATES),
                )
                found = [row[0] for row in cursor.fetchall()]
            if len(found) >= LIMIT:
                break
        return found
    vocabulary = spelling.vocabulary(market)
    held = [(-r, -f, w) for w, (f, r) in vocabulary.items() if w.startswith(prefix)]
    return [w for _, _, w in sorted(held)[:CANDIDATES]]


def _ranked(word: str | None, candidates: list[str], market: str | None) -> list[str]:
    """``candidates`` (completions of the last word, in vocabulary order), ranked by how
    many foods are *about* them (phrase index tier 0: the head of the name, counted up
    to ``HEADS_CAP``): "chicken" before "cooked". After a whole ``word``, the completion
    is the pair (``word`` + candidate) and only pairs that stand together in some food's
    name are kept ("peanut b" -> "peanut butter")."""
    if not candidates:
        return []
    stems = [text.stem(word)] if word else []
    keys = {c: text.phrase_key([*stems, text.stem(c)]) for c in candidates}
    connection = connections[catalogue_read_alias()]
    if connection.vendor == "postgresql":
        # One index probe per "about" tier (``ABOUT_TIERS``), each an index condition on
        # (phrase, tier): with ``tier IN (...)`` PostgreSQL read every tier of a common
        # word's phrase and filtered (8 ms for "c" on the full catalogue, 1.4 ms so).
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT k, (SELECT count(*) FROM (SELECT 1 FROM unnest(%(tiers)s::smallint[]) "
                "AS t(tier), LATERAL (SELECT 1 FROM catalogue_food_phrase p "
                "WHERE p.phrase = k AND p.tier = t.tier AND (%(market)s::varchar IS NULL "
                "OR p.market_id = %(market)s::varchar) LIMIT %(cap)s) a LIMIT %(cap)s) h), "
                "EXISTS (SELECT 1 FROM catalogue_food_phrase p WHERE p.phrase = k "
                "AND (%(market)s::varchar IS NULL OR p.market_id = %(market)s::varchar)) "
                "FROM unnest(%(keys)s::text[]) AS k",
                {
                    "tiers": list(ABOUT_TIERS),
                    "market": market,
                    "cap": HEADS_CAP,
                    "keys": sorted(set(keys.values())),
                },
            )
            counted = {k: (heads, held) for k, heads, held in cursor.fetchall()}
    else:
        pairs, heads = _sqlite_phrases(market)
        counted = {k: (min(heads.get(k, 0), HEADS_CAP), k in pairs) for k in keys.values()}
    order = {c: i for i, c in enumerate(candidates)}
    kept = [c for c in candidates if not stems or counted.get(keys[c], (0, False))[1]]
    return sorted(kept, key=lambda c: (-counted[keys[c]][0], order[c]))


_phrases: dict[str | None, tuple[tuple[object, ...], frozenset[str], dict[str, int]]] = {}


def _sqlite_phrases(market: str | None) -> tuple[frozenset[str], dict[str, int]]:
    """SQLite: the phrase keys of every two adjacent stems of the names in ``market``,
    and how many foods each head key (``search_heads``) is about: what the phrase index
    holds on PostgreSQL. Recounted when the catalogue changes."""
    connection = connections[catalogue_read_alias()]
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), max(id), sum(length(search_name)) FROM catalogue_food")
        stamp = (connection.settings_dict["NAME"], *cursor.fetchone())
        cached = _phrases.get(market)
        if cached and cached[0] == stamp:
            return cached[1], cached[2]
        cursor.execute(
            "SELECT search_stems, search_heads FROM catalogue_food "
            "WHERE %s IS NULL OR market_id = %s",
            (market, market),
        )
        pairs: set[str] = set()
        heads: dict[str, int] = {}
        for stems, head_keys in cursor.fetchall():
            held = (stems or "").split()
            pairs.update(text.phrase_key([a, b]) for a, b in pairwise(held))
            for key in (head_keys or "").strip("|").split("|"):
                if key:
                    heads[key] = heads.get(key, 0) + 1
    _phrases[market] = (stamp, frozenset(pairs), heads)
    return frozenset(pairs), heads
