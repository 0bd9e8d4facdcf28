"""Suggestions as you type (``GET /v1/suggest``; docs/catalogue.md, "Suggestions"):
completions of what has been typed, best first, in the caller's market.

The last word typed is completed from the market's vocabulary (catalogue.spelling's
``catalogue_word`` on PostgreSQL, counted from the names on SQLite), preferring the
words reference foods hold, then the words more foods hold: ``chick`` gives "chicken"
(held by thousands of reference foods) before "chickpeas". After one or more whole
words, a completion must stand next to the word before it in some food's name (the
phrase index, catalogue/search.py; on SQLite, the stems of the names): ``peanut b``
gives "peanut butter". Reads go through the read router like every catalogue read.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from django.db import connections

from catalogue import spelling, text
from foodservice.replicas import catalogue_read_alias

LIMIT = 10
# Completions of the last word considered (best first) before the pair check.
CANDIDATES = 40
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
    words = _completions(last, market)
    if before:
        words = _following(before[-1], words, market)
    prefix = " ".join(before)
    return [Suggestion(f"{prefix} {w}".strip()) for w in words[:limit]]


def _completions(prefix: str, market: str | None) -> list[str]:
    """Vocabulary words starting with ``prefix`` (the word itself included), reference
    foods' words first, then by how many foods hold them."""
    connection = connections[catalogue_read_alias()]
    if connection.vendor == "postgresql":
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT word FROM catalogue_word WHERE word LIKE %s AND foods > 0 "
                "AND (%s::varchar IS NULL OR market_id = %s::varchar) "
                "GROUP BY word ORDER BY sum(reference) DESC, sum(foods) DESC, word LIMIT %s",
                (pattern, market, market, CANDIDATES),
            )
            return [row[0] for row in cursor.fetchall()]
    vocabulary = spelling.vocabulary(market)
    held = [(-r, -f, w) for w, (f, r) in vocabulary.items() if w.startswith(prefix)]
    return [w for _, _, w in sorted(held)[:CANDIDATES]]


def _following(word: str, candidates: list[str], market: str | None) -> list[str]:
    """The ``candidates`` that stand next to ``word`` in some food's name, in order."""
    if not candidates:
        return []
    first = text.stem(word)
    keys = {c: text.phrase_key([first, text.stem(c)]) for c in candidates}
    connection = connections[catalogue_read_alias()]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT k FROM unnest(%s::text[]) AS k WHERE EXISTS (SELECT 1 FROM "
                "catalogue_food_phrase p WHERE p.phrase = k "
                "AND (%s::varchar IS NULL OR p.market_id = %s::varchar))",
                (sorted(set(keys.values())), market, market),
            )
            found = {row[0] for row in cursor.fetchall()}
    else:
        found = _sqlite_pairs(market) & set(keys.values())
    return [c for c in candidates if keys[c] in found]


_pairs: dict[str | None, tuple[tuple[object, ...], frozenset[str]]] = {}


def _sqlite_pairs(market: str | None) -> frozenset[str]:
    """SQLite: the phrase keys of every two adjacent stems of the names in ``market``
    (what the phrase index holds on PostgreSQL), recounted when the catalogue changes."""
    connection = connections[catalogue_read_alias()]
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), max(id), sum(length(search_name)) FROM catalogue_food")
        stamp = (connection.settings_dict["NAME"], *cursor.fetchone())
        cached = _pairs.get(market)
        if cached and cached[0] == stamp:
            return cached[1]
        cursor.execute(
            "SELECT search_stems FROM catalogue_food WHERE %s IS NULL OR market_id = %s",
            (market, market),
        )
        found = set()
        for (stems,) in cursor.fetchall():
            held = (stems or "").split()
            found.update(text.phrase_key([a, b]) for a, b in pairwise(held))
    _pairs[market] = (stamp, frozenset(found))
    return _pairs[market][1]
