"""Typo tolerance (docs/catalogue.md, "Misspellings"): the closest common words of the
catalogue's vocabulary for the words of a query that (nearly) match nothing.

The vocabulary is every distinct word (3+ characters, not only digits) of the foods'
``search_name`` with how many foods hold it, so whatever ``catalogue.text.searchable_text``
makes searchable is also a correction target. PostgreSQL keeps it in ``catalogue_word``
(triggers, migration 0006) and finds candidates with a ``pg_trgm`` similarity search
(``%``, GIN index); SQLite (development and tests, SR28-sized) counts it from the names in Python,
cached until the catalogue changes. Either way the candidates are then ranked by
optimal-string-alignment distance (rapidfuzz: insertions, deletions, substitutions and
transpositions of adjacent letters, each one edit), then by how many foods hold them.
On PostgreSQL, when the trigram candidates hold no correction, the words one edit away
are looked up too (``one_edit``): trigrams miss a transposition in a short word. A word
with no correction within its edits may be two common words run together
(``split``: "peanutbutter", "icecream").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from rapidfuzz import process
from rapidfuzz.distance import OSA

from catalogue import text
from catalogue.routing import catalogue_read_alias

# A word held by at least this many foods is never corrected.
COMMON = 50
# A correction must be held by this many times more foods than the word typed.
MORE_COMMON = 10
CANDIDATES = 30
MAX_WORDS = 6


@dataclass(frozen=True, slots=True)
class Word:
    word: str
    foods: int


def max_edits(word: str) -> int:
    """How far a correction of ``word`` may lie: one edit up to 4 letters, else two."""
    return 1 if len(word) <= 4 else 2


def correct(q: str) -> str | None:
    """``q``'s words (``text.words``) with each rare or unknown word replaced by the
    closest vocabulary word that at least ``MORE_COMMON`` times as many foods hold
    (ties: fewer edits, then more foods, then alphabetical); None when no word changes.
    An unknown word may lie ``max_edits`` away from its correction; a word the
    vocabulary holds (fewer than ``COMMON`` times) only one edit, so that a rare real
    word is not replaced by a common look-alike two edits away. A rare or unknown word
    with no such correction becomes two common words when it is two run together
    (``split``: "peanutbutter"). Words of fewer than 3 characters and numbers are kept."""
    terms = text.words(q)
    if not terms or len(terms) > MAX_WORDS:
        return None
    known = _counts(terms)
    out, changed = [], False
    for term in terms:
        own = known.get(term, 0)
        best = None
        if own < COMMON and len(term) >= 3 and not term.isdigit():
            limit = 1 if own else max_edits(term)
            minimum = max(1, MORE_COMMON * own)
            best = _closest(term, limit=limit, minimum=minimum) or split(
                term, minimum=max(COMMON, minimum)
            )
        out.append(best or term)
        changed = changed or best is not None
    return " ".join(out) if changed else None


def split(term: str, *, minimum: int) -> str | None:
    """``term`` as two vocabulary words of 3+ letters run together ("peanutbutter" ->
    "peanut butter"), each held by at least ``minimum`` foods; of several splits, the
    one whose rarer half more foods hold. None when no split qualifies."""
    halves = [(term[:i], term[i:]) for i in range(3, len(term) - 2)]
    if not halves:
        return None
    known = _counts([word for pair in halves for word in pair])
    foods, left, right = max((min(known.get(a, 0), known.get(b, 0)), a, b) for a, b in halves)
    return f"{left} {right}" if foods >= minimum else None


def _closest(term: str, *, limit: int, minimum: int) -> str | None:
    best = _best(term, _candidates(term), limit=limit, minimum=minimum)
    if best is None and _db().vendor == "postgresql":
        best = _best(term, _one_edit_words(term), limit=limit, minimum=minimum)
    return best


def _best(term: str, candidates: list[Word], *, limit: int, minimum: int) -> str | None:
    ranked = []
    for candidate in candidates:
        if candidate.foods < minimum or candidate.word == term:
            continue
        distance = OSA.distance(term, candidate.word, score_cutoff=limit)
        if distance <= limit:
            ranked.append((distance, -candidate.foods, candidate.word))
    return min(ranked)[2] if ranked else None


def one_edit(word: str) -> set[str]:
    """Every string one edit (OSA) from ``word`` over the letters a-z: the candidates a
    trigram search misses on short words ("mlik" shares one trigram with "milk")."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = {a + b[1:] for a, b in splits if b}
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    replaces = {a + c + b[1:] for a, b in splits if b for c in letters}
    inserts = {a + c + b for a, b in splits for c in letters}
    return (deletes | swaps | replaces | inserts) - {word}


def _counts(terms: list[str]) -> dict[str, int]:
    if _db().vendor == "postgresql":
        with _db().cursor() as cursor:
            cursor.execute(
                "SELECT word, foods FROM catalogue_word WHERE word = ANY(%s)", (list(set(terms)),)
            )
            return dict(cursor.fetchall())
    vocabulary = _sqlite_vocabulary()
    return {term: vocabulary[term] for term in terms if term in vocabulary}


def _candidates(term: str) -> list[Word]:
    if _db().vendor == "postgresql":
        with _db().cursor() as cursor:
            cursor.execute(
                "SELECT word, foods FROM catalogue_word WHERE word %% %s AND foods > 0 "
                "ORDER BY similarity(word, %s) DESC LIMIT %s",
                (term, term, CANDIDATES),
            )
            return [Word(*row) for row in cursor.fetchall()]
    vocabulary = _sqlite_vocabulary()
    found = process.extract(
        term, vocabulary.keys(), scorer=OSA.distance, score_cutoff=max_edits(term),
        limit=CANDIDATES,
    )  # fmt: skip
    return [Word(word, vocabulary[word]) for word, _, _ in found]


def _one_edit_words(term: str) -> list[Word]:
    """PostgreSQL: the vocabulary words one edit from ``term``, looked up when the
    trigram candidates hold no correction (trigrams miss a swap in a short word)."""
    with _db().cursor() as cursor:
        cursor.execute(
            "SELECT w.word, w.foods FROM unnest(%s::text[]) AS u(word) "
            "JOIN catalogue_word w ON w.word = u.word WHERE w.foods > 0",
            (sorted(one_edit(term)),),
        )
        return [Word(*row) for row in cursor.fetchall()]


def _db() -> BaseDatabaseWrapper:
    """The connection a catalogue read uses: a replica's under the read router."""
    return connections[catalogue_read_alias()]


_cache: dict[str, tuple[tuple[object, ...], Counter[str]]] = {}


def _sqlite_vocabulary() -> Counter[str]:
    """Word -> foods holding it, from every ``search_name``; recounted when the
    catalogue's row count, largest id or total name length changes."""
    with _db().cursor() as cursor:
        cursor.execute("SELECT count(*), max(id), sum(length(search_name)) FROM catalogue_food")
        stamp = (_db().settings_dict["NAME"], *cursor.fetchone())
        cached = _cache.get("vocabulary")
        if cached and cached[0] == stamp:
            return cached[1]
        cursor.execute("SELECT search_name FROM catalogue_food")
        counts: Counter[str] = Counter()
        for (name,) in cursor.fetchall():
            counts.update({w for w in name.split() if len(w) >= 3 and not w.isdigit()})
    _cache["vocabulary"] = (stamp, counts)
    return counts
