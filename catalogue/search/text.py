"""Search text: how names and queries are normalised (pure, no database).

Names and queries go through the same ``words()`` so both search backends see the same
token stream: lowercase, accents folded, split on anything that is not a letter or a
digit. Characters that mean something to a search engine (quotes, ``&``, ``|``, ``!``,
``:*``, ``%``, backslashes, NUL) are separators here, so they are always searched as
plain text and can never reach a query parser (issue 3, point 7).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

import Stemmer

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The lowercase, accent-folded words of ``text``."""
    return _WORD.findall(fold(text))


def fold(text: str) -> str:
    """``text`` lowercase and accent-folded: ``words(text)`` is ``words_of(fold(text))``."""
    folded = text.casefold()
    if not folded.isascii():
        folded = unicodedata.normalize("NFKD", folded)
        folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return folded


# The words of a folded text (``fold``): for callers splitting one folded text in parts.
words_of = _WORD.findall


def search_name(name: str) -> str:
    """The stored, searchable form of a food name: its words joined by single spaces and
    padded with one space each side, so ``" butter "`` tests "the whole word butter"
    with a plain LIKE on both backends."""
    return f" {' '.join(words(name))} "


def search_aliases(local_names: dict[str, tuple[str, ...]] | dict[str, list[str]]) -> str:
    """The searchable form of a food's other names (``Food.search_aliases``): every
    name's words, names separated by `` | `` (so ``search_name``-style padding holds for
    each), in the order given; ``""`` without any."""
    names = [" ".join(words(name)) for group in local_names.values() for name in group]
    unique = list(dict.fromkeys(name for name in names if name))
    return f" {' | '.join(unique)} " if unique else ""


def slugify_name(name: str) -> str:
    """A category's public id: ``"Dairy and Egg Products"`` -> ``"dairy-and-egg-products"``.
    Long names (FDC has whole GS1 definitions as categories) keep their first words and
    a hash of the whole name, so two long names sharing a beginning stay apart."""
    slug = "-".join(words(name)) or "uncategorised"
    if len(slug) <= 60:
        return slug
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{slug[:50].rstrip('-')}-{digest}"


# PostgreSQL's English stop words (tsearch_data/english.stop, the Snowball list): its
# ``english`` configuration drops them from names and queries alike, so they never
# decide a match there. The same words are left out of SQLite's FTS query and of the
# "every word" test of a long query's relevance (catalogue.search.matching), so both backends
# treat ``scrambled eggs with milk`` as scrambled, eggs, milk.
STOP_WORDS = frozenset(
    {
        "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours",
        "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers",
        "herself", "it", "its", "itself", "they", "them", "their", "theirs", "themselves",
        "what", "which", "who", "whom", "this", "that", "these", "those", "am", "is", "are",
        "was", "were", "be", "been", "being", "have", "has", "had", "having", "do", "does",
        "did", "doing", "a", "an", "the", "and", "but", "if", "or", "because", "as", "until",
        "while", "of", "at", "by", "for", "with", "about", "against", "between", "into",
        "through", "during", "before", "after", "above", "below", "to", "from", "up", "down",
        "in", "out", "on", "off", "over", "under", "again", "further", "then", "once", "here",
        "there", "when", "where", "why", "how", "all", "any", "both", "each", "few", "more",
        "most", "other", "some", "such", "no", "nor", "not", "only", "own", "same", "so",
        "than", "too", "very", "s", "t", "can", "will", "just", "don", "should", "now",
    }
)  # fmt: skip


def significant(terms: list[str]) -> list[str]:
    """``terms`` without ``STOP_WORDS``, or all of them when every one is a stop word."""
    kept = [term for term in terms if term not in STOP_WORDS]
    return kept or terms


# Consonants romanised from Indian scripts with or without an aspirate "h" ("gobi" and
# "gobhi", "dal" and "dhal", "bindi" and "bhindi"): local names are compared up to one.
_ASPIRABLE = frozenset("bcdgjkpt")
MAX_ROMANISED_WORDS = 3


def romanisations(phrase: str) -> list[str]:
    """``phrase`` (words joined by spaces) and its spellings one aspirate "h" away: an
    "h" added after, or removed from after, one of ``_ASPIRABLE``'s consonants
    (``gobi`` -> ``ghobi``, ``gobhi``, ...; ``bhindi`` -> ``bindi``, ...). Phrases of
    more than ``MAX_ROMANISED_WORDS`` words come back alone."""
    if phrase.count(" ") >= MAX_ROMANISED_WORDS:
        return [phrase]
    found = [phrase]
    for i, ch in enumerate(phrase):
        if ch not in _ASPIRABLE:
            continue
        if phrase[i + 1 : i + 2] == "h":
            found.append(phrase[: i + 1] + phrase[i + 2 :])
        else:
            found.append(phrase[: i + 1] + "h" + phrase[i + 1 :])
    return list(dict.fromkeys(found))


# The last word of a search is also a prefix (``chick`` finds chickpeas) from this many
# characters on. A shorter one is a whole word: ``c:*`` holds half the catalogue (191,265
# of 399,710 foods; 150 ms for PostgreSQL only to count them), and nobody finds a food
# by its first letter in a search (``/v1/suggest`` completes what is being typed; issue
# 36.1: ``q=with c``, ``very b`` and ``a b`` each ranked ~190,000 foods).
MIN_PREFIX = 3


def as_prefix(terms: list[str], prefix: bool) -> bool:
    """Whether the last of ``terms`` is searched as a prefix: asked for, and at least
    ``MIN_PREFIX`` characters long."""
    return prefix and bool(terms) and len(terms[-1]) >= MIN_PREFIX


def postgres_tsquery(terms: list[str], *, prefix: bool = True) -> str:
    """A ``to_tsquery`` text for ``terms``: every word must match, the last one also as a
    prefix (so ``chick`` finds chicken while typing) unless ``prefix`` is False or it is
    shorter than ``MIN_PREFIX``. ``terms`` come from ``words()``, so they hold letters
    and digits only and quoting them is safe."""
    parts = [f"'{term}'" for term in terms]
    if as_prefix(terms, prefix):
        parts[-1] += ":*"
    return " & ".join(parts)


def fts5_query(terms: list[str], *, prefix: bool = True) -> str:
    """The SQLite FTS5 equivalent of ``postgres_tsquery``: quoted terms, the last as a
    prefix under the same rule."""
    parts = [f'"{term}"' for term in terms]
    if as_prefix(terms, prefix):
        parts[-1] += "*"
    return " AND ".join(parts)


def clean_query(raw: str) -> str:
    """Search text as it is searched and as it keys every memory of it: NFC, without
    format characters (Unicode category Cf: zero-width spaces and joiners, bidi
    controls, soft hyphens, BOMs, which no name holds and nobody sees), white space
    runs made one space, trimmed. ``"butter\u200b  "`` and ``"butter"`` are one search
    (issue 36.1: each spelling was a search of its own, past the worker's memory)."""
    if raw.isascii():
        return " ".join(raw.split())
    visible = "".join(ch for ch in raw if unicodedata.category(ch) != "Cf")
    return " ".join(unicodedata.normalize("NFC", visible).split())


# --- Ranking forms of a name (docs/catalogue.md, "Relevance") ---------------------------

_STEMMER = Stemmer.Stemmer("english")
# Where USDA names put the food after a comma: "Bananas, raw" is about bananas, and
# "Milk, whole" is whole milk. A name's segments are split at these.
_SEGMENT = re.compile(r"[,;(]")
# Heads that name a class rather than a food in SR Legacy ("Nuts, almonds", "Spices,
# pepper, black", "Cheese, cheddar", "Fish, salmon"): the segment after them is the
# food, so it is a head key too. Stems, as ``stem()`` makes them.
CLASS_HEADS = frozenset(
    {"nut", "seed", "spice", "fish", "beverag", "cereal", "chees", "crustacean", "mollusk",
     "alcohol beverag", "game meat"}
)  # fmt: skip


def stem(word: str) -> str:
    """The English (Snowball) stem of a ``words()`` word: ``bananas`` -> ``banana``."""
    return _STEMMER.stemWord(word)


def phrase_key(stems: list[str]) -> str:
    """The key of one or two stems in the phrase index: two words in either order are
    the same key (``whole milk`` and "Milk, whole"), so a pair is sorted."""
    return " ".join(sorted(stems)) if len(stems) == 2 else " ".join(stems)


def searchable_text(name: str) -> str:
    """Everything a food is found by. Today its name; a food's other names (e.g. local
    names) join here, and from here reach the full-text index, the phrase index and the
    typo vocabulary (all fed from ``search_forms``)."""
    return name


def search_forms(name: str) -> dict[str, str]:
    """The stored search columns of a food named ``name``, the one place that makes them:

    - ``search_name``: its words, padded (" bananas raw "), what full-text search
      matches and what the typo vocabulary is made of;
    - ``search_stems``: the stems of those words, padded (" banana raw "), what
      relevance compares the query's stems with;
    - ``search_heads``: the keys (``phrase_key``) the name is *about*, "|banana|": its
      head (the text before the first comma) when one or two words, a one-word head
      with each later one-word segment ("Milk, whole" -> "milk whole"; "Chicken,
      broilers or fryers, breast" -> "breast chicken"), and after a class head
      (``CLASS_HEADS``) the second segment alone ("Nuts, almonds" -> "almond").
    """
    text = searchable_text(name)
    segments = [[stem(w) for w in words(s)] for s in _SEGMENT.split(text)]
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
    all_words = words(text)
    return {
        "search_name": f" {' '.join(all_words)} ",
        "search_stems": f" {' '.join(stem(w) for w in all_words)} ",
        "search_heads": "|" + "".join(f"{h}|" for h in dict.fromkeys(heads)),
    }


# Words after which a query names what its food is made or served with (or without),
# not the food: ``scrambled eggs with milk`` is eggs, ``hard boiled egg no salt`` egg.
# Not "of": in ``glass of milk`` the food comes after it.
MODIFIER_WORDS = frozenset({"with", "without", "no", "in", "on", "from"})


def named_word(typed: list[str], terms: list[str], about: dict[str, int]) -> int:
    """The index in ``terms`` of the word naming the food: the last word some reference
    food is about (``about``) before any ``MODIFIER_WORDS`` word (in English the head of
    a noun phrase comes last: ``rice`` in ``egg fried rice``, ``turkey`` in ``ground
    turkey 93 lean``); after it, or when no word before one is, the word most reference
    foods are about (the first of equal ones)."""
    before = []
    for term in typed:
        if term in MODIFIER_WORDS:
            break
        before.append(term)
    heads = [i for i, term in enumerate(terms) if term in before and about.get(term, 0)]
    if heads:
        return heads[-1]
    return max(range(len(terms)), key=lambda i: (about.get(terms[i], 0), -i))
