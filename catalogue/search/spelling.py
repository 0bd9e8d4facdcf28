"""Typo tolerance (docs/catalogue.md, "Misspellings"): the closest common words of the
searched market's vocabulary for the words of a query that (nearly) match nothing.

The vocabulary is, per market, every distinct word (3+ characters, not only digits) of
the foods' ``search_name`` and local names (``search_aliases``), with how many foods
hold it and how many of those are not branded (``reference``), so whatever
``catalogue.search.text.searchable_text`` and the local names make searchable is also a
correction target, and a local name ("palak" in market IN) is a known word, never
corrected into a word of another market. PostgreSQL keeps it in ``catalogue_word``
(triggers, migration 0013) and finds candidates with a ``pg_trgm`` similarity search
(``%``, GIN index); SQLite (development and tests, SR28-sized) counts it from the names
in Python, cached until the catalogue changes. Every look-up goes through the read
router (``catalogue.routing.catalogue_read_alias``), like every catalogue read.

A word held by ``COMMON`` foods of the market, or by one reference (non-branded) food
of it, is never corrected ("palak", a local name in market IN, or "atta", stay as
typed); a word known only from a few branded labels ("cauliflour") is corrected like an
unknown one.
Candidates within the word's edit budget are ranked: the same first letter as the word
typed (people rarely get it wrong: "cantelope" is cantaloupe, not antelope), held by
reference foods, fewer optimal-string-alignment edits (rapidfuzz: insertions, deletions,
substitutions and transpositions of adjacent letters), more foods. On PostgreSQL, when
the trigram candidates hold no correction one edit away, the words one edit away are
looked up too (``one_edit``): trigrams miss a transposition in a short word. A word with
no correction within its edits may be two common words run together (``split``:
"peanutbutter", "icecream").

The fallback bounds its own work whatever the input (issue 24.1): words longer than
``MAX_WORD_LENGTH`` are kept as typed, at most ``MAX_EDIT_CANDIDATES`` one-edit strings
are looked up per word, and words not reached within ``BUDGET_SECONDS`` are kept as typed
(a backstop: the other two bounds keep a whole query well inside it).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from django.db import connections
from rapidfuzz import process
from rapidfuzz.distance import OSA

from catalogue.routing import catalogue_read_alias
from catalogue.search import text

# A word held by at least this many foods is never corrected.
COMMON = 50
# A correction must be held by this many times more foods than the word typed.
MORE_COMMON = 10
CANDIDATES = 30
MAX_WORDS = 6
# Issue 24.1: longer words are never corrected (nor split): on the full catalogue the
# longest word held by 50+ foods has 13 letters ("mediterranean"), the longest of all 25,
# and the candidate generation (``one_edit``: 54 x length strings, ``split``) stays
# bounded.
MAX_WORD_LENGTH = 24
MAX_EDIT_CANDIDATES = 2_000
BUDGET_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class Word:
    word: str
    foods: int
    reference: int = 0


def max_edits(word: str) -> int:
    """How far a correction of ``word`` may lie: one edit up to 4 letters, else two."""
    return 1 if len(word) <= 4 else 2


def correct(
    q: str,
    market: str | None = None,
    *,
    clock: Callable[[], float] = time.monotonic,
    known: Mapping[str, Word] | None = None,
) -> str | None:
    """``q``'s words (``text.words``) with each rare or unknown word of ``market``'s
    vocabulary (None: every market's) replaced by the best-ranked vocabulary word (see
    the module) that at least ``MORE_COMMON`` times as many foods hold; None when no
    word changes. A word held by ``COMMON`` foods of the market, or by a reference
    (non-branded) food of it, is kept: it already finds foods there; an unknown word, or
    one known only from fewer than ``COMMON`` branded labels, may lie ``max_edits`` away. A
    word with no such correction becomes two common words when it is two run together
    (``split``: "peanutbutter"). Words of fewer than 3 characters, of more than
    ``MAX_WORD_LENGTH``, and numbers are kept, and so are the words not reached when
    ``BUDGET_SECONDS`` (read from ``clock``) have passed. ``known``: the vocabulary
    entries of q's words in ``market`` when the caller read them already
    (``COUNTS_COLUMN``), else they are looked up."""
    terms = text.words(q)
    if not terms or len(terms) > MAX_WORDS:
        return None
    deadline = clock() + BUDGET_SECONDS
    if known is None:
        known = _counts(terms, market)
    out, changed = [], False
    for term in terms:
        own = known.get(term, Word(term, 0))
        best = None
        if (
            own.foods < COMMON
            and not own.reference
            and 3 <= len(term) <= MAX_WORD_LENGTH
            and not term.isdigit()
            and clock() < deadline
        ):
            minimum = max(1, MORE_COMMON * own.foods)
            best = _closest(term, market, limit=max_edits(term), minimum=minimum) or split(
                term, market, minimum=max(COMMON, minimum)
            )
        out.append(best or term)
        changed = changed or best is not None
    return " ".join(out) if changed else None


def split(term: str, market: str | None = None, *, minimum: int) -> str | None:
    """``term`` as two vocabulary words of 3+ letters run together ("peanutbutter" ->
    "peanut butter"), each held by at least ``minimum`` foods; of several splits, the
    one whose rarer half more foods hold. None when no split qualifies (or ``term`` is
    longer than ``MAX_WORD_LENGTH``)."""
    if len(term) > MAX_WORD_LENGTH:
        return None
    halves = [(term[:i], term[i:]) for i in range(3, len(term) - 2)]
    if not halves:
        return None
    known = _counts([word for pair in halves for word in pair], market)
    foods, left, right = max(
        (min(known[a].foods if a in known else 0, known[b].foods if b in known else 0), a, b)
        for a, b in halves
    )
    return f"{left} {right}" if foods >= minimum else None


def _closest(term: str, market: str | None, *, limit: int, minimum: int) -> str | None:
    candidates = _candidates(term, market)
    best = _best(term, candidates, limit=limit, minimum=minimum)
    if _vendor() == "postgresql" and (best is None or OSA.distance(term, best) > 1):
        # Trigrams miss a swap in a short word ("shirmp": shrimp is one edit away).
        candidates += _one_edit_words(term, market)
        best = _best(term, candidates, limit=limit, minimum=minimum)
    return best


def _best(term: str, candidates: list[Word], *, limit: int, minimum: int) -> str | None:
    """The best candidate within ``limit`` edits held by ``minimum`` foods: the same
    first letter, then held by reference foods, then fewer edits, then more foods."""
    ranked = []
    for candidate in candidates:
        if candidate.foods < minimum or candidate.word == term:
            continue
        distance = OSA.distance(term, candidate.word, score_cutoff=limit)
        if distance <= limit:
            ranked.append(
                (
                    candidate.word[:1] != term[:1],
                    candidate.reference == 0,
                    distance,
                    -candidate.foods,
                    candidate.word,
                )
            )
    return min(ranked)[-1] if ranked else None


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


def _vendor() -> str:
    return connections[catalogue_read_alias()].vendor


# The markets a vocabulary look-up reads (the %s given, or every market when it is
# None), written so that the primary key (market_id, word) finds each word: with
# "%s IS NULL OR market_id = %s" a look-up in every market used the trigram index
# instead (5 ms against 0.2 ms on the full catalogue; bench/RESULTS.md, issue 28.5).
# catalogue.search.suggest's prefix look-ups read their markets the same way.
MARKETS_SQL = (
    "CASE WHEN %s::varchar IS NULL THEN ARRAY(SELECT code FROM catalogue_market) "
    "ELSE ARRAY[%s::varchar] END"
)


# ``_counts``'s look-up as a column of another statement, with named parameters
# (``%(words)s``: ``counted_words(terms)``, ``%(market)s``): a new search reads its words'
# entries with its page's rows (catalogue.search.matching.phrase_page), and
# ``correct`` is then given them (``known``) instead of looking them up again. The
# words go in as one text and the entries come back as one ("word foods reference ..."
# by spaces; a vocabulary word holds none): psycopg binds and reads a text in a few
# microseconds, a list or a JSON value in tens (issue 41.1's profile).
COUNTS_COLUMN = (
    "(SELECT string_agg(concat_ws(' ', word, foods, reference), ' ') FROM ("  # noqa: S608 (constants only)
    "SELECT word, sum(foods)::int AS foods, sum(reference)::int AS reference "
    "FROM catalogue_word WHERE word = ANY(string_to_array(%(words)s, ' ')) AND market_id = ANY("
    + MARKETS_SQL.replace("%s", "%(market)s")
    + ") GROUP BY word) w)"
)


def counted_words(terms: list[str]) -> str:
    """``COUNTS_COLUMN``'s ``%(words)s`` for ``terms``: the words ``_counts`` looks up."""
    return " ".join(sorted(set(terms)))


def counts_of(found: str | None) -> dict[str, Word]:
    """``COUNTS_COLUMN``'s value as ``_counts`` returns its rows."""
    fields = (found or "").split()
    return {
        fields[i]: Word(fields[i], int(fields[i + 1]), int(fields[i + 2]))
        for i in range(0, len(fields), 3)
    }


def _counts(terms: list[str], market: str | None) -> dict[str, Word]:
    """The vocabulary entries of ``terms`` in ``market`` (None: all markets, summed)."""
    wanted = sorted(set(terms))
    if _vendor() == "postgresql":
        with connections[catalogue_read_alias()].cursor() as cursor:
            cursor.execute(
                "SELECT word, sum(foods)::int, sum(reference)::int FROM catalogue_word "  # noqa: S608 (constants only)
                "WHERE word = ANY(string_to_array(%s, ' ')) AND market_id = ANY("
                + MARKETS_SQL
                + ") GROUP BY word",
                (counted_words(terms), market, market),
            )
            return {row[0]: Word(*row) for row in cursor.fetchall()}
    vocabulary = _sqlite_vocabulary(market)
    return {term: Word(term, *vocabulary[term]) for term in wanted if term in vocabulary}


def vocabulary_entries(terms: list[str], market: str | None) -> dict[str, Word]:
    """The vocabulary entries (how many foods, and reference foods, hold the word) of
    those of ``terms`` some food of ``market`` (None: all markets) holds (issue 38.4:
    the analysis corrects only words no food holds, into words reference foods hold)."""
    return {term: word for term, word in _counts(terms, market).items() if word.foods > 0}


def foods_holding(terms: list[str], market: str | None) -> dict[str, int]:
    """How many foods of ``market`` (None: all markets) hold each of ``terms`` (a
    ``words()`` word) as a word of a name or local name; 0 for a word none holds."""
    known = _counts(terms, market)
    return {term: known[term].foods if term in known else 0 for term in terms}


def _candidates(term: str, market: str | None) -> list[Word]:
    if _vendor() == "postgresql":
        with connections[catalogue_read_alias()].cursor() as cursor:
            cursor.execute(
                "SELECT word, sum(foods)::int, sum(reference)::int FROM catalogue_word "
                "WHERE word %% %s AND foods > 0 "
                "AND (%s::varchar IS NULL OR market_id = %s::varchar) "
                "GROUP BY word ORDER BY similarity(word, %s) DESC LIMIT %s",
                (term, market, market, term, CANDIDATES),
            )
            return [Word(*row) for row in cursor.fetchall()]
    vocabulary = _sqlite_vocabulary(market)
    found = process.extract(
        term, vocabulary.keys(), scorer=OSA.distance, score_cutoff=max_edits(term),
        limit=CANDIDATES,
    )  # fmt: skip
    return [Word(word, *vocabulary[word]) for word, _, _ in found]


def _one_edit_words(term: str, market: str | None) -> list[Word]:
    """PostgreSQL: the vocabulary words one edit from ``term``, looked up when the
    trigram candidates hold no correction (trigrams miss a swap in a short word)."""
    # One primary-key probe per (market, edit): joined instead, PostgreSQL hashed the
    # whole vocabulary for a few hundred edits (14 ms for "mlik" on the full catalogue;
    # 3 ms so). The LIMIT 1 (the key is unique) keeps each probe a parameterised one.
    with connections[catalogue_read_alias()].cursor() as cursor:
        cursor.execute(
            "SELECT u.word, sum(w.foods)::int, sum(w.reference)::int "  # noqa: S608 (constants only)
            "FROM unnest(string_to_array(%s, ' ')) AS u(word) "
            "CROSS JOIN unnest(" + MARKETS_SQL + ") AS m(code) "
            "CROSS JOIN LATERAL (SELECT foods, reference FROM catalogue_word "
            "WHERE market_id = m.code AND word = u.word AND foods > 0 LIMIT 1) w "
            "GROUP BY u.word",
            (" ".join(sorted(one_edit(term))[:MAX_EDIT_CANDIDATES]), market, market),
        )
        return [Word(*row) for row in cursor.fetchall()]


def vocabulary(market: str | None) -> dict[str, tuple[int, int]]:
    """SQLite: word -> (foods, non-branded foods) in ``market`` (``_sqlite_vocabulary``)."""
    return _sqlite_vocabulary(market)


_cache: dict[str | None, tuple[tuple[object, ...], dict[str, tuple[int, int]]]] = {}


def _sqlite_vocabulary(market: str | None) -> dict[str, tuple[int, int]]:
    """Word -> (foods holding it, non-branded foods holding it) in ``market`` (None:
    all), from every ``search_name`` and ``search_aliases``; recounted when the
    catalogue's row count, largest id or total name length changes."""
    connection = connections[catalogue_read_alias()]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), max(id), sum(length(search_name) + length(search_aliases)) "
            "FROM catalogue_food"
        )
        stamp = (connection.settings_dict["NAME"], *cursor.fetchone())
        cached = _cache.get(market)
        if cached and cached[0] == stamp:
            return cached[1]
        cursor.execute(
            "SELECT search_name, search_aliases, data_type FROM catalogue_food "
            "WHERE %s IS NULL OR market_id = %s",
            (market, market),
        )
        foods: Counter[str] = Counter()
        reference: Counter[str] = Counter()
        for name, aliases, data_type in cursor.fetchall():
            held = {
                w
                for w in f"{name} {aliases.replace('|', ' ')}".split()
                if len(w) >= 3 and not w.isdigit()
            }
            foods.update(held)
            if data_type != "branded":
                reference.update(held)
    counts = {word: (n, reference[word]) for word, n in foods.items()}
    _cache[market] = (stamp, counts)
    return counts
