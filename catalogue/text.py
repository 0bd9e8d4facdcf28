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

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The lowercase, accent-folded words of ``text``."""
    folded = text.casefold()
    if not folded.isascii():
        folded = unicodedata.normalize("NFKD", folded)
        folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _WORD.findall(folded)


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


def postgres_tsquery(terms: list[str]) -> str:
    """A ``to_tsquery`` text for ``terms``: every word must match, the last one also as a
    prefix (so ``chick`` finds chicken while typing). ``terms`` come from ``words()``,
    so they hold letters and digits only and quoting them is safe."""
    parts = [f"'{term}'" for term in terms]
    parts[-1] += ":*"
    return " & ".join(parts)


def fts5_query(terms: list[str]) -> str:
    """The SQLite FTS5 equivalent of ``postgres_tsquery``: quoted terms, last as prefix."""
    parts = [f'"{term}"' for term in terms]
    parts[-1] += "*"
    return " AND ".join(parts)
