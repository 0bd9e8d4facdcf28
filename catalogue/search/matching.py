"""Full-text search backends: which foods match a query, and how well.

Matching is backend-specific (PostgreSQL: the GIN-indexed ``search_vector``; SQLite:
the FTS5 table; both made by migration 0002). Relevance is the same portable
expression on both, computed on stems from ``search_stems`` and ``search_heads``
(catalogue.search.text.search_forms; one or two query words in either order), a reference
(non-branded) food's class above every branded one's, and a food's above a dish named
after it (a dish word, catalogue.search.ranking.DISH_WORDS: "Zucchini, pickled"):

                       reference       branded
                      food   dish    food   dish
    about the query    13     10       7      4   its head: "Bananas, raw", "BANANA";
                                                  3+ words: every word, in any order,
                                                  and its head named by the query
    starts with it     12      9       6      3   "Banana bread"
    holds it           11      8       5      2   "Bread, banana"
    1   a local name (``search_aliases``) is the query ("aloo": potato; up to one
        aspirate "h", catalogue.search.text.romanisations: "gobi" is "gobhi"), or the name
        starts with the query as a prefix ("butterbur" for "butter")
    0   any other match (every word, the last one as a prefix, somewhere)

ties broken by ``quality`` (catalogue.search.ranking: reference foods before other lab data
before branded, descriptive names before ALL-CAPS ones, the food before dishes made of
it, the basic form, full nutrient panels before thin ones), then the shorter name, then
the id.

A weak query of three or more words (no reference food about, starting with or
holding it) is searched without one or two of its words (``relaxed``), stop words
(catalogue.search.text.STOP_WORDS) never deciding a match on either backend.

On PostgreSQL, a one- or two-word query's matches of relevance 13..2 (the name holds the
query's words as a phrase) also come ready-ranked from ``catalogue_food_phrase``
(migrations 0004, 0006): ``phrase_rows`` reads them from its btree in relevance order, without
ranking every match, and ``phrase_count`` counts them from the same index. Both give
exactly the rows ``match`` + ``with_relevance`` give with relevance >= 2 (tested):
every such name holds the query's words, so it matches the tsquery too, unless that
tsquery is empty (only stop words), which both then treat as no match.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import reduce
from itertools import combinations
from operator import and_, or_
from typing import Any

from django.db import connection
from django.db.models import BooleanField, Case, F, IntegerField, Q, QuerySet, Value, When
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce, Length

from catalogue.delivery import rendering
from catalogue.models import Food
from catalogue.routing import catalogue_read_alias
from catalogue.search import spelling, text
from catalogue.search.ranking import BRANDED
from core.sql import prepared_cursor


def match(queryset: QuerySet, q: str, *, prefix: bool = True) -> QuerySet:
    """``queryset`` narrowed to the foods whose name (or a local name) matches every word
    of ``q`` (the last word also as a prefix unless ``prefix`` is False, and only from
    ``text.MIN_PREFIX`` characters on). A ``q`` without any letter or digit matches
    nothing: no name is searched for it literally, which cost a scan of every row
    (issue 36.1; ``GET /v1/foods`` refuses such a ``q``, an analysis line finds no food)."""
    terms = text.words(q)
    if not terms:
        return queryset.none()
    if connection.vendor == "postgresql":
        condition = RawSQL(
            "catalogue_food.search_vector @@ to_tsquery('english'::regconfig, %s)",
            (text.postgres_tsquery(terms, prefix=prefix),),
            output_field=BooleanField(),
        )
    else:
        # Stop words left out as PostgreSQL's english configuration leaves them out.
        kept = text.significant(terms)
        prefix = prefix and kept[-1] == terms[-1]
        condition = RawSQL(
            "catalogue_food.id IN (SELECT rowid FROM catalogue_food_fts "
            "WHERE catalogue_food_fts MATCH %s)",
            (text.fts5_query(kept, prefix=prefix),),
            output_field=BooleanField(),
        )
    return queryset.filter(condition)


def with_relevance(queryset: QuerySet, q: str) -> QuerySet:
    """Annotates ``relevance`` (13..0, higher is better; the module's table), ``quality``
    (the food's ``rank_quality``, lower is better) and ``name_length``, compared on
    stems (catalogue.search.text.search_forms). For one or two words (the phrase index's keys)
    the two words may stand in either order ("Milk, whole" is ``whole milk``); three or
    more words are *about* a name that holds each of them as a whole word, in any order
    ("Ice cream, chocolate" for ``chocolate ice cream``)."""
    terms = text.words(q)
    stems = [text.stem(term) for term in terms]
    phrase = " ".join(stems)
    if 1 <= len(stems) <= PHRASE_MAX_WORDS:
        orders = dict.fromkeys((phrase, " ".join(reversed(stems))))
        head = Q(search_heads__contains=f"|{text.phrase_key(stems)}|")
        starts = reduce(or_, (Q(search_stems__startswith=f" {o} ") for o in orders))
        holds = reduce(or_, (Q(search_stems__contains=f" {o} ") for o in orders))
    else:  # three or more words (or none: then nothing below holds)
        joins = _joined(stems)
        significant = [text.stem(term) for term in text.significant(terms)]
        head = _about_all(stems, significant, foods=_foods_named(stems, significant))
        starts = reduce(or_, (Q(search_stems__startswith=f" {o} ") for o in joins))
        holds = reduce(or_, (Q(search_stems__contains=f" {o} ") for o in joins))
    local = " ".join(terms)
    # The place of the match (13 about, 12 starts, 11 holds; each LIKE evaluated once),
    # then lowered by 3 for a dish and 6 for a branded food (the module's table).
    queryset = queryset.annotate(
        place=Case(
            When(head, then=Value(13)),
            When(starts, then=Value(12)),
            When(holds, then=Value(11)),
            default=Value(0),
            output_field=IntegerField(),
        ),
        lowered=Coalesce("rank_quality", Value(UNRANKED_QUALITY)).bitand(DISH_BIT)
        / Value(DISH_BIT)
        * Value(3)
        + Case(When(_branded(terms), then=Value(6)), default=Value(0)),
    )
    return queryset.annotate(
        relevance=Case(
            When(place__gt=0, then=F("place") - F("lowered")),
            When(search_stems__startswith=f" {phrase}", then=Value(1)),
            When(reduce(or_, map(_local_name, text.romanisations(local))), then=Value(1)),
            default=Value(0),
            output_field=IntegerField(),
        ),
        quality=Coalesce("rank_quality", Value(UNRANKED_QUALITY)),
        name_length=Length("search_name"),
    )


# A name led by a brand in capitals ("CAMPBELL'S, Chicken with Rice Soup", "DENNY'S,
# spaghetti and meatballs", "PACE, Salsa Verde"): a head of capitals, digits and marks
# only (two capitals at least) before the first comma.
BRAND_HEAD = r"^[^a-z,]*[A-Z][^a-z,]*[A-Z][^a-z,]*,"


def _branded(terms: list[str]) -> Q:
    """Whether a food counts as branded in the match class of the query ``terms``: a
    ``branded`` one, and, for three words or more, a reference food whose name is led
    by a brand (``BRAND_HEAD``: SR28 lists restaurants' and makers' products this way),
    which is a product, not the dish ("chicken and rice" is not a can of soup), unless
    the query names the brand (a word of it in the brand's head: ``campbell's chicken
    with rice``). One or two words rank as the phrase index's stored tiers do (data
    type)."""
    branded = Q(data_type=BRANDED)
    if len(terms) <= PHRASE_MAX_WORDS:
        return branded
    named = "|".join(dict.fromkeys(text.significant(terms)[:ABOUT_PAIR_WORDS]))
    in_head = rf"^([^,]*[^a-z0-9,])?({named})([^a-z0-9,][^,]*)?,"
    return branded | (Q(name__regex=BRAND_HEAD) & ~Q(name__iregex=in_head))


def _joined(stems: list[str]) -> list[str]:
    """The phrases a name may start with or hold to match a query of three or more
    words (``stems``) in place: the query itself and, when it names two foods joined
    by one ``COMBINING_STEMS`` word ("rice and beans", "biscuits and gravy"), the same
    two joined by either word in either order ("Beans and rice", "Biscuit with
    gravy"): a combination is one dish whichever way it is named. A query of up to
    ``JOINED_MAX_WORDS`` words without a joining word also stands for itself with
    "and" in one of its gaps: people leave it out ("peanut butter jelly sandwich" is
    "Peanut butter and jelly sandwich")."""
    phrase = " ".join(stems)
    joins = [i for i, s in enumerate(stems) if s in COMBINING_STEMS]
    if not joins and len(stems) <= JOINED_MAX_WORDS:
        gaps = [" ".join([*stems[:i], "and", *stems[i:]]) for i in range(1, len(stems))]
        return [phrase, *gaps]
    if len(joins) != 1 or not 0 < joins[0] < len(stems) - 1:
        return [phrase]
    first, second = " ".join(stems[: joins[0]]), " ".join(stems[joins[0] + 1 :])
    found = [
        f"{a} {word} {b}" for a, b in ((first, second), (second, first)) for word in COMBINING_STEMS
    ]
    return list(dict.fromkeys([phrase, *found]))


# The words joining two foods into one dish (catalogue.search.ranking.COMBINING_WORDS,
# stemmed: both are their own stems).
COMBINING_STEMS = ("and", "with")
JOINED_MAX_WORDS = 5


def _foods_named(stems: list[str], significant: list[str]) -> list[str]:
    """The words of a query of three or more words that may each name what a name is
    about alone: all of its ``significant`` stems, but none when it joins two foods
    with "and" ("rice and beans" is neither rice nor beans), and those before "with"
    when it names a food served with another ("tea with milk" is tea, not milk)."""
    inner = stems[1:-1]
    if "and" in inner:
        return []
    if "with" in inner:
        before = set(stems[: stems.index("with", 1)])
        return [s for s in significant if s in before]
    return significant


def _about_all(stems: list[str], significant: list[str], *, foods: list[str] | None = None) -> Q:
    """Whether a name is *about* a query of three or more words (``stems``; stop words
    aside, ``significant``): it holds each of them as a whole word, in any order, and
    what it is about (one of its ``search_heads`` keys: its head, a one-word head with a
    later one-word segment, a class head's food) is made of the query's words only
    ("Milk, low fat (1%)" for ``low fat milk``, not "Yogurt, low fat milk, plain",
    which is yogurt). Of the one-word keys only those of ``foods`` (``_foods_named``;
    None: all) count: a name about one of the foods of "rice and beans" ("Rice, peas,
    black beans ...", which is rice) is not about the combination, and a two-word key
    or two-word head sharing a word is needed then."""
    distinct = list(dict.fromkeys(significant))
    if not distinct:
        return Q(search_stems=f" {' '.join(stems)} ")
    wholes = reduce(and_, [Q(search_stems__contains=f" {s} ") for s in distinct])
    # Pairs of the first ABOUT_PAIR_WORDS words only: a long input stays a short SQL.
    pairs = combinations(distinct[:ABOUT_PAIR_WORDS], 2)
    singles = distinct if foods is None else [s for s in distinct if s in foods]
    keys = [*singles, *(text.phrase_key([a, b]) for a, b in pairs)]
    heads = reduce(or_, [Q(search_heads__contains=f"|{key}|") for key in keys])
    # Or a two-word head (the first key) sharing a word with the query: "Wheat flour,
    # white, all-purpose" is flour for ``all purpose flour``.
    either = "|".join(re.escape(s) for s in distinct)
    shared = Q(search_heads__regex=rf"^\|([^| ]+ ({either})|({either}) [^| ]+)\|")
    return wholes & (heads | shared)


def _local_name(name: str) -> Q:
    """Whether one of a food's local names (``search_aliases``) is ``name``."""
    return (
        Q(search_aliases=f" {name} ")
        | Q(search_aliases__startswith=f" {name} |")
        | Q(search_aliases__endswith=f"| {name} ")
        | Q(search_aliases__contains=f"| {name} |")
    )


ABOUT_PAIR_WORDS = 8
# catalogue.search.ranking.quality's dish bit (a dish word in the name). Not imported from there:
# ranking.py's bytes are part of the rendering format and the load digest.
DISH_BIT = 4
# A food without rank_quality (not yet filled) ranks after every ranked one.
UNRANKED_QUALITY = 63


# A relevance of at least this is a phrase match (the name holds the query's words in
# order): the rows catalogue_food_phrase holds for the query.
PHRASE_RELEVANCE = 2
PHRASE_MAX_WORDS = 2


def phrase_of(q: str) -> str | None:
    """The ``catalogue_food_phrase`` key of ``q`` when the phrase index can rank it
    (PostgreSQL, one or two words), else None."""
    terms = text.words(q)
    if connection.vendor != "postgresql" or not 1 <= len(terms) <= PHRASE_MAX_WORDS:
        return None
    return text.phrase_key([text.stem(term) for term in terms])


# Rows of catalogue_food_phrase holding the phrase, in the market (NULL: any)
# (``_PHRASE_EVERY``), after a (tier, quality, name_length, food_id) key
# (``_PHRASE_MATCHES``); tier is 13 - relevance (migration 0013: head, start, elsewhere;
# + 3 a dish; + 6 branded). The tsquery test is a constant (a one-time filter): a query
# of stop words only matches nothing in ``match``, so not here either.
_PHRASE_EVERY = (
    "FROM catalogue_food_phrase WHERE phrase = %(phrase)s "
    "AND (%(market)s::varchar IS NULL OR market_id = %(market)s::varchar) "
    "AND numnode(to_tsquery('english'::regconfig, %(tsquery)s)) > 0"
)
_PHRASE_MATCHES = (
    _PHRASE_EVERY + " AND (tier, quality, name_length, food_id) > "
    "(%(tier)s, %(quality)s, %(name_length)s, %(food_id)s)"
)
_PHRASE_ROWS = (
    "SELECT food_id, 13 - tier, quality, name_length "
    + _PHRASE_MATCHES
    + " ORDER BY tier, quality, name_length, food_id LIMIT %(limit)s OFFSET %(offset)s"
)
_PHRASE_COUNT = (
    "SELECT count(*) FROM (SELECT 1 "  # noqa: S608 (constants only, values are parameters)
    + _PHRASE_MATCHES
    + " LIMIT %(limit)s) s"
)


def phrase_rows(
    *,
    q: str,
    market: str | None,
    after: tuple[Any, ...] | None,
    offset: int,
    limit: int,
) -> list[dict[str, Any]]:
    """The phrase matches of ``q`` (relevance >= 2) in relevance order, as dicts of
    ``id``, ``relevance``, ``quality``, ``name_length``: those after the sort key ``after`` (a
    relevance-ordering key, see catalogue.search.ordering) if given, skipping ``offset``, at
    most ``limit``. ``q`` must have a ``phrase_of``."""
    params = _phrase_params(q, market, after) | {"limit": limit, "offset": offset}
    with prepared_cursor(catalogue_read_alias()) as cursor:
        cursor.execute(_PHRASE_ROWS, params)
        found = cursor.fetchall()
    return [{"id": i, "relevance": r, "quality": k, "name_length": n} for i, r, k, n in found]


def phrase_count(*, q: str, market: str | None, cap: int | None) -> int:
    """How many phrase matches ``q`` has (relevance >= 2), counting at most ``cap``
    (None: all). ``q`` must have a ``phrase_of``."""
    with prepared_cursor(catalogue_read_alias()) as cursor:
        cursor.execute(_PHRASE_COUNT, _phrase_params(q, market, None) | {"limit": cap})
        return cursor.fetchone()[0]


# A phrase-ranked search's ``total`` in one statement (issue 41.1, the miss path): its
# phrase matches counted from the phrase index first; only when they stay within the
# cap, every match counted (the same rows ``_filtered`` + ``match`` give a search with no
# filter but the market: shown foods only, catalogue.search.variants). PostgreSQL reads a
# CASE branch's subquery only when the branch is taken.
_MATCH_COUNT = (
    "SELECT count(*) FROM (SELECT 1 FROM catalogue_food "
    "WHERE (%(market)s::varchar IS NULL OR market_id = %(market)s::varchar) "
    "AND (variant_count IS NULL OR variant_count > 0) "
    "AND search_vector @@ to_tsquery('english'::regconfig, %(matching)s) "
    "LIMIT %(over)s) m"
)
_MATCH_TOTAL = (
    "CASE WHEN (SELECT count(*) FROM (SELECT 1 "  # noqa: S608 (constants only)
    + _PHRASE_EVERY
    + " LIMIT %(over)s) p) > %(cap)s THEN %(over)s ELSE ("
    + _MATCH_COUNT
    + ") END"
)


def counts_in_sql(q: str) -> bool:
    """Whether ``match_count`` can count the matches of ``q`` (PostgreSQL; a word)."""
    return connection.vendor == "postgresql" and bool(text.words(q))


def match_count(*, q: str, market: str | None, prefix: bool, cap: int) -> int:
    """How many foods a search of ``q`` with no filter but ``market`` matches (``match``,
    shown foods only), counting up to ``cap``: the bound ``_ranked`` checks before
    ranking a phrase-ranked search's other matches, and the whole-word count of the
    spelling fallback (catalogue.search.selectors), without building the ORM's query."""
    params = {
        "market": market or None,
        "matching": text.postgres_tsquery(text.words(q), prefix=prefix),
        "over": cap,
    }
    with prepared_cursor(catalogue_read_alias()) as cursor:
        cursor.execute(_MATCH_COUNT, params)
        return cursor.fetchone()[0]


def phrase_total(*, q: str, market: str | None, prefix: bool, cap: int) -> int:
    """How many foods a phrase-ranked search of ``q`` (no filter but ``market``; its last
    word a prefix when ``prefix``) matches, counting up to ``cap`` + 1 (more than
    ``cap``: the phrase matches alone, or all matches, pass it): what ``phrase_count``
    then a count of ``match``'s rows gave, in one statement. ``q`` must have a
    ``phrase_of``."""
    params = _phrase_params(q, market, None) | {
        "cap": cap,
        "over": cap + 1,
        "matching": text.postgres_tsquery(text.words(q), prefix=prefix),
    }
    with prepared_cursor(catalogue_read_alias()) as cursor:
        cursor.execute("SELECT " + _MATCH_TOTAL, params)
        return cursor.fetchone()[0]


# A page of a phrase-ranked search read in one statement (issue 41.1, the miss path):
# its phrase rows (``_PHRASE_ROWS``), each with its stored summary
# (catalogue.delivery.rendering.SUMMARY_COLUMN); the search's total as
# ``phrase_total`` counts it, only when the rows fill the page (a page they do not fill
# reads the other matches, which tell the total); and the vocabulary entries of its
# words (catalogue.search.spelling.COUNTS_COLUMN), which the spelling fallback of a
# search with few matches reads. One row at least (NULLs but the entries when no phrase
# row is found). PostgreSQL evaluates each uncorrelated subquery once, and the count
# only when its CASE branch is taken. Three statements and their round trips fewer
# than reading the four apart, for most new searches.
_PHRASE_PAGE = (
    "WITH head AS (SELECT food_id, 13 - tier AS relevance, quality, name_length "  # noqa: S608 (constants only)
    + _PHRASE_MATCHES
    + " ORDER BY tier, quality, name_length, food_id LIMIT %(limit)s OFFSET %(offset)s) "
    "SELECT h.food_id, h.relevance, h.quality, h.name_length, "
    + rendering.SUMMARY_COLUMN.format(food="h.food_id")
    + ", CASE WHEN (SELECT count(*) FROM head) < %(limit)s THEN NULL ELSE ("
    + _MATCH_TOTAL
    + ") END, "
    + spelling.COUNTS_COLUMN
    + " FROM (SELECT) one LEFT JOIN head h ON true "
    "ORDER BY h.relevance DESC, h.quality, h.name_length, h.food_id"
)


@dataclass(frozen=True, slots=True)
class PhrasePage:
    """``phrase_page``'s answer: ``rows`` as ``phrase_rows`` gives them, each with
    ``summary`` (the stored bytes, or None when missing or outdated); ``total`` as
    ``phrase_total`` counts it when the rows fill the page, else None; ``words``: the
    vocabulary entries of q's words in the market (catalogue.search.spelling.correct's
    ``known``)."""

    rows: list[dict[str, Any]]
    total: int | None
    words: dict[str, spelling.Word]


def phrase_page(
    *,
    q: str,
    market: str | None,
    prefix: bool,
    after: tuple[Any, ...] | None,
    offset: int,
    limit: int,
    cap: int,
) -> PhrasePage:
    """``phrase_rows`` (with their summaries), ``phrase_total`` (when the rows fill
    ``limit``) and the vocabulary entries of q's words, in one statement
    (``_PHRASE_PAGE``). ``q`` must have a ``phrase_of``."""
    terms = text.words(q)
    params = _phrase_params(q, market, after) | {
        "limit": limit,
        "offset": offset,
        "cap": cap,
        "over": cap + 1,
        "matching": text.postgres_tsquery(terms, prefix=prefix),
        "format": rendering.render_format(),
        "words": spelling.counted_words(terms),
    }
    with prepared_cursor(catalogue_read_alias()) as cursor:
        cursor.execute(_PHRASE_PAGE, params)
        found = cursor.fetchall()
    rows = [
        {"id": i, "relevance": r, "quality": k, "name_length": n, "summary": _bytes(summary)}
        for i, r, k, n, summary, _, _ in found
        if i is not None
    ]
    return PhrasePage(rows=rows, total=found[0][5], words=spelling.counts_of(found[0][6]))


# The matches of a phrase-ranked search below the phrase index (relevance 1 and 0: no
# head, start or whole phrase of the query in the name), ranked as ``with_relevance``
# ranks them, with ``remaining`` (how many such rows follow ``after``) as a window count.
# Written out once instead of built by the ORM on every new search (issue 41.1: the
# ORM's ~30 expressions cost more Python than the rest of the page); the tests compare
# it with ``with_relevance`` over every match.
_TAIL_ROWS = (
    "SELECT id, relevance, quality, name_length, count(*) OVER () AS remaining FROM ("
    "SELECT id, CASE WHEN search_stems LIKE %(starts_phrase)s THEN 1 "
    "WHEN {local} THEN 1 ELSE 0 END AS relevance, "
    "COALESCE(rank_quality, %(unranked)s) AS quality, length(search_name) AS name_length "
    "FROM catalogue_food "
    "WHERE (%(market)s::varchar IS NULL OR market_id = %(market)s::varchar) "
    "AND (variant_count IS NULL OR variant_count > 0) "
    "AND search_vector @@ to_tsquery('english'::regconfig, %(matching)s) "
    "AND CASE WHEN search_heads LIKE %(head)s THEN 13 WHEN {starts} THEN 12 "
    "WHEN {holds} THEN 11 ELSE 0 END = 0 {gate}) t "
    "{after}"
    "ORDER BY relevance DESC, quality, name_length NULLS LAST, id "
    "LIMIT %(limit)s OFFSET %(offset)s"
)
# ``_TAIL_ROWS`` for a page of GET /v1/foods (issue 41.1, the miss path): first, when
# the last word is a prefix, its matches counted up to the bound past which they are
# not ranked (``%(over)s``: selectors.TAIL_RANK_CAP past the phrase matches, plus
# one); the rows only when the count stays within it (a one-time filter on that
# count); each row with its stored summary. One row at least (the count, and NULLs when
# no row is found). Two statements and their round trips fewer than reading them apart.
_TAIL_PAGE = (
    "WITH bound AS (SELECT CASE WHEN %(bounded)s THEN ("  # noqa: S608 (constants only)
    + _MATCH_COUNT
    + ") ELSE 0 END AS n), tail AS ({rows}) "
    "SELECT (SELECT n FROM bound), tail.id, tail.relevance, tail.quality, tail.name_length, "
    "tail.remaining, "
    + rendering.SUMMARY_COLUMN.format(food="tail.id")
    + " FROM (SELECT) one LEFT JOIN tail ON true "
    "ORDER BY tail.relevance DESC, tail.quality, tail.name_length NULLS LAST, tail.id"
)
_TAIL_GATE = "AND (SELECT n FROM bound) < %(over)s"
_LOCAL_NAME = (
    "(search_aliases = %(exact{i})s OR search_aliases LIKE %(first{i})s "
    "OR search_aliases LIKE %(last{i})s OR search_aliases LIKE %(inner{i})s)"
)


def tail_rows(
    *,
    q: str,
    market: str | None,
    prefix: bool,
    after: tuple[Any, ...] | None,
    offset: int,
    limit: int,
) -> list[dict[str, Any]]:
    """The matches of ``q`` (one or two words, filtered by ``market`` only; the last
    word a prefix when ``prefix``) of relevance below ``PHRASE_RELEVANCE``, in
    relevance order, as dicts of ``id``, ``relevance``, ``quality``, ``name_length`` and
    ``remaining``: those after the sort key ``after`` if given, skipping ``offset``, at
    most ``limit``. The rows ``with_relevance`` ranks the same way (module docstring)."""
    sql, params = _tail_statement(q, market, prefix, after, offset, limit, gate="")
    with prepared_cursor(catalogue_read_alias()) as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    return [
        {"id": i, "relevance": r, "quality": k, "name_length": n, "remaining": c}
        for i, r, k, n, c in found
    ]


def tail_page(
    *,
    q: str,
    market: str | None,
    prefix: bool,
    after: tuple[Any, ...] | None,
    offset: int,
    limit: int,
    bound: int | None,
) -> list[dict[str, Any]] | None:
    """``tail_rows`` for a page of GET /v1/foods, in one statement (``_TAIL_PAGE``):
    each row also carries ``summary`` (the stored bytes, or None when missing or
    outdated); with ``bound``, when more than ``bound`` foods match q (``match_count``),
    no row is ranked and the answer is None."""
    gate = _TAIL_GATE if bound is not None else ""
    sql, params = _tail_statement(q, market, prefix, after, offset, limit, gate=gate)
    params |= {
        "bounded": bound is not None,
        "over": (bound or 0) + 1,
        "format": rendering.render_format(),
    }
    with prepared_cursor(catalogue_read_alias()) as cursor:
        cursor.execute(_TAIL_PAGE.format(rows=sql), params)
        found = cursor.fetchall()
    if bound is not None and found[0][0] > bound:
        return None
    return [
        {
            "id": i,
            "relevance": r,
            "quality": k,
            "name_length": n,
            "remaining": c,
            "summary": _bytes(summary),
        }
        for _, i, r, k, n, c, summary in found
        if i is not None
    ]


def _tail_statement(
    q: str,
    market: str | None,
    prefix: bool,
    after: tuple[Any, ...] | None,
    offset: int,
    limit: int,
    *,
    gate: str,
) -> tuple[str, dict[str, Any]]:
    """``_TAIL_ROWS`` for ``q`` and its parameters (``tail_rows``), ``gate`` in its
    ``WHERE``."""
    terms = text.words(q)
    stems = [text.stem(term) for term in terms]
    if not 1 <= len(stems) <= PHRASE_MAX_WORDS:
        raise ValueError(f"the phrase index cannot rank {q!r}")
    like = connection.ops.prep_for_like_query
    orders = list(dict.fromkeys((" ".join(stems), " ".join(reversed(stems)))))
    params: dict[str, Any] = {
        "market": market or None,
        "matching": text.postgres_tsquery(terms, prefix=prefix),
        "unranked": UNRANKED_QUALITY,
        "head": f"%{like(f'|{text.phrase_key(stems)}|')}%",
        "starts_phrase": f"{like(' ' + ' '.join(stems))}%",
        "limit": limit,
        "offset": offset,
    }
    for i, order in enumerate(orders):
        params[f"starts{i}"] = f"{like(f' {order} ')}%"
        params[f"holds{i}"] = f"%{like(f' {order} ')}%"
    names = text.romanisations(" ".join(terms))
    for i, name in enumerate(names):
        params |= {
            f"exact{i}": f" {name} ",
            f"first{i}": f"{like(f' {name} |')}%",
            f"last{i}": f"%{like(f'| {name} ')}",
            f"inner{i}": f"%{like(f'| {name} |')}%",
        }
    where = ""
    if after is not None:
        where = "WHERE (-relevance, quality, name_length, id) > (%(r)s, %(k)s, %(n)s, %(i)s) "
        params |= dict(zip("rkni", (-after[0], *after[1:]), strict=True))
    sql = _TAIL_ROWS.format(
        local=" OR ".join(_LOCAL_NAME.format(i=i) for i in range(len(names))),
        starts=" OR ".join(f"search_stems LIKE %(starts{i})s" for i in range(len(orders))),
        holds=" OR ".join(f"search_stems LIKE %(holds{i})s" for i in range(len(orders))),
        after=where,
        gate=gate,
    )
    return sql, params


def _bytes(value: bytes | memoryview | None) -> bytes | None:
    """A bytea column's value as bytes (None stays None)."""
    return None if value is None else bytes(value)


def _phrase_params(q: str, market: str | None, after: tuple[Any, ...] | None) -> dict[str, Any]:
    phrase = phrase_of(q)
    if phrase is None:
        raise ValueError(f"the phrase index cannot rank {q!r}")
    tier, quality, name_length, food_id = (
        (-1, 0, 0, 0) if after is None else (13 - after[0], *after[1:])
    )
    return {
        "phrase": phrase,
        "market": market or None,
        "tier": tier,
        "quality": quality,
        "name_length": name_length,
        "food_id": food_id,
        "tsquery": text.postgres_tsquery(text.words(q)),
    }


# Relaxing a long query (docs/catalogue.md, "Relevance"): a query of this many words or
# more (stop words aside) whose first result is weak (relevance below ``STRONG``: no
# reference food is about, starts with or holds it) is searched without one word, and
# a four-word one also without two (two words left: the phrase index ranks those at
# the cost of an index probe); queries of more than ``RELAX_MAX_WORDS`` words are left
# as typed, and so are the candidates not tried within ``RELAX_BUDGET_SECONDS``.
RELAX_MIN_WORDS = 3
RELAXED_MIN_WORDS = 2
RELAX_MAX_WORDS = 6
RELAX_BUDGET_SECONDS = 0.25
STRONG = 8


def relaxed(
    q: str,
    top: Callable[[str], dict[str, Any] | None],
    foods_holding: Callable[[list[str]], dict[str, int]],
    foods_about: Callable[[list[str]], dict[str, int]],
    found: Callable[[list[str]], set[str]] = set,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> str | None:
    """``q`` without its least informative words when they keep it from finding the
    food: None when ``q`` has fewer than ``RELAX_MIN_WORDS`` or more than
    ``RELAX_MAX_WORDS`` significant words, or when its own first result (``top(q)``: the
    sort key of the first row, or None) has a relevance of ``STRONG`` or more.
    Otherwise each query with one word left out (then, from four words, two), in
    typed order, without stop words but those between two kept words, is searched,
    and the one whose first result ranks best wins (relevance, then quality, then
    the shorter name, as a result list ranks foods);
    between equal first results, the one leaving out the words held by most foods
    (``foods_holding``: the least informative). The word most reference foods are
    about (``foods_about``: "turkey" in ``ground turkey 93 lean``) names the food
    meant and is never left out. A query keeping a word no food's name matches even
    as a prefix (``found``: the words some name matches) finds nothing and is not
    searched (issue 36.1: six unknown words were six searches). None when no such
    query finds a strong first result.

    A query naming a food with what it is served with or without (``text.MODIFIER_WORDS``:
    ``bagel with cream cheese``, ``oatmeal with milk``, two words or more) is first
    searched as the words before that word (``bagel``), which wins when its first
    result is strong: the food is named before the "with"."""
    terms = [term for term in text.words(q) if term not in text.STOP_WORDS]
    head = _head_part(text.words(q))
    if len(terms) > RELAX_MAX_WORDS or (len(terms) < RELAX_MIN_WORDS and head is None):
        return None
    first = top(q)
    if first is not None and first["relevance"] >= STRONG:
        return None
    if head is not None:
        # The food named before what it is served with (or without), alone.
        found_head = top(head)
        if found_head is not None and found_head["relevance"] >= STRONG:
            return head
        if len(terms) < RELAX_MIN_WORDS:
            return None
    deadline = clock() + RELAX_BUDGET_SECONDS
    held = foods_holding(terms)
    about = foods_about(terms)
    live = found(terms)
    named = text.named_word(text.words(q), terms, about)
    for dropped in (1, 2):
        if len(terms) - dropped < RELAXED_MIN_WORDS or (dropped == 2 and len(terms) != 4):
            break
        best: tuple[tuple[Any, ...], str] | None = None
        for kept in combinations(range(len(terms)), len(terms) - dropped):
            if clock() > deadline:
                break
            if named not in kept and about.get(terms[named], 0):
                continue
            if any(terms[i] not in live for i in kept):
                continue
            candidate = _spoken(text.words(q), {terms[i] for i in kept})
            found = top(candidate)
            if found is None or found["relevance"] < STRONG:
                continue
            left_out = sum(held.get(terms[i], 0) for i in range(len(terms)) if i not in kept)
            rank = (-found["relevance"], found["quality"], found["name_length"], -left_out)
            if best is None or rank < best[0]:
                best = (rank, candidate)
        if best is not None:
            return best[1]
    return None


# Relaxing an empty search (issue 39, point 1; docs/catalogue.md, "Relevance"): a query
# no food holds whole is searched with fewer of its words, down to one. At most
# ``WIDEN_MAX_WORDS`` of its words are weighed (the named word and the rarest others;
# the rest are left out at once), at most ``WIDEN_TRIES`` smaller queries of each size
# are searched (so at most 1 + 3 + 3 + 1), and none after ``WIDEN_BUDGET_SECONDS`` but
# the named word alone.
WIDEN_MAX_WORDS = 4
# A query of more distinct words than this (stop words aside) is not widened: no diary
# or recipe names a food in more, and 50 unknown three-letter words widened cost 13x an
# ordinary search on the full catalogue (eight searches of prefixes).
WIDEN_MAX_TYPED = 8
WIDEN_TRIES = 3
WIDEN_BUDGET_SECONDS = 0.1


def widened(
    q: str,
    top: Callable[[str], dict[str, Any] | None],
    foods_holding: Callable[[list[str]], dict[str, int]],
    foods_about: Callable[[list[str]], dict[str, int]],
    found: Callable[[list[str]], set[str]],
    *,
    clock: Callable[[], float] = time.monotonic,
) -> str | None:
    """The query searched for ``q`` when no food matches all of its words (the caller
    knows): ``q`` with the fewest of its words left out that lets some food match
    (``top(q)``: the sort key of its first food by relevance, or None). None when
    ``q`` has fewer than two significant words (stop words aside) or none that any
    name matches (``found``), or more than ``WIDEN_MAX_TYPED``; words of fewer than
    ``text.MIN_PREFIX`` letters are left out at once.

    Words no name matches are left out first: those the market's vocabulary holds
    (``foods_holding``, one look-up) are kept, the others asked (``found``, one
    statement for all of them, as a prefix too). The word most
    reference foods are about (``foods_about``; between equal counts the later one,
    the head of an English noun phrase: ``rice`` in ``egg fried rice``) names the food
    and is kept to the end; of the others, those held by the most foods
    (``foods_holding``: the least informative) are left out first. Among the queries
    of one size that find a food, the one whose first food ranks best wins
    (relevance, quality, shorter name), then the one leaving out the commonest words.
    Stop words between two kept words stay (``peanut butter and jelly`` keeps its
    ``and``, which decides whether a name starts with it)."""
    typed = text.words(q)
    terms = list(dict.fromkeys(term for term in typed if term not in text.STOP_WORDS))
    asked = len(terms)
    if not 2 <= asked <= WIDEN_MAX_TYPED:
        return None
    # A word of one or two letters names no food alone and matches broadly ("c" in
    # every "vitamin C"): left out at once, never weighed.
    terms = [term for term in terms if len(term) >= text.MIN_PREFIX]
    if not terms:
        return None
    deadline = clock() + WIDEN_BUDGET_SECONDS
    held = foods_holding(terms)
    unheld = [term for term in terms if not held.get(term, 0)]
    live = found(unheld) if unheld else set()
    terms = [term for term in terms if held.get(term, 0) or term in live]
    if not terms:
        return None
    about = foods_about(terms)
    named = text.named_word(typed, terms, about)
    # The named word and the rarest others, in typed order.
    others = sorted(
        (i for i in range(len(terms)) if i != named), key=lambda i: held.get(terms[i], 0)
    )
    weighed = sorted([named, *others[: WIDEN_MAX_WORDS - 1]])
    # All the words weighed are searched together first when some were left out already.
    for size in range(len(weighed) - (len(weighed) == asked), 0, -1):
        subsets = [kept for kept in combinations(weighed, size) if named in kept]
        # The commonest words left out first.
        subsets.sort(key=lambda kept: -sum(held.get(terms[i], 0) for i in weighed if i not in kept))
        best: tuple[tuple[Any, ...], str] | None = None
        for kept in subsets[:WIDEN_TRIES]:
            if clock() > deadline and size > 1:
                break
            candidate = _spoken(typed, {terms[i] for i in kept})
            first = top(candidate)
            if first is None:
                continue
            left_out = sum(held.get(terms[i], 0) for i in weighed if i not in kept)
            rank = (-first["relevance"], first["quality"], first["name_length"], -left_out)
            if best is None or rank < best[0]:
                best = (rank, candidate)
        if best is not None:
            return best[1]
        if clock() > deadline:
            # Out of time: the named word alone (one more search), never nothing.
            candidate = terms[named]
            return candidate if size > 1 and top(candidate) is not None else None
    return None


def _head_part(typed: list[str]) -> str | None:
    """The words of ``typed`` before its first ``text.MODIFIER_WORDS`` word (stop words
    between them kept), when significant words stand both before and after it; else
    None."""
    for i, term in enumerate(typed):
        if term in text.MODIFIER_WORDS:
            before = [t for t in typed[:i] if t not in text.STOP_WORDS]
            after = [t for t in typed[i + 1 :] if t not in text.STOP_WORDS]
            return _spoken(typed[:i], set(before)) if before and after else None
    return None


def _spoken(typed: list[str], kept: set[str]) -> str:
    """The words of ``typed`` that are in ``kept`` (each once), in typed order, with
    the stop words standing between two of them."""
    out: list[str] = []
    pending: list[str] = []
    for term in typed:
        if term in text.STOP_WORDS:
            if out:
                pending.append(term)
            continue
        if term in kept and term not in out:
            out += [*pending, term]
        pending = []
    return " ".join(out)


def words_found(terms: list[str], market: str | None) -> set[str]:
    """The ``terms`` some food name of ``market`` (None: any) matches, as a prefix from
    ``text.MIN_PREFIX`` letters on (so a word a search could match whole or as its last
    word): one index probe per word, in one statement on PostgreSQL."""
    distinct = sorted(set(terms))
    if not distinct:
        return set()
    if connection.vendor == "postgresql":
        queries = [text.postgres_tsquery([term]) for term in distinct]
        with prepared_cursor(catalogue_read_alias()) as cursor:
            cursor.execute(
                "SELECT t.term FROM unnest(%s::text[], %s::text[]) AS t(term, q) "
                "WHERE numnode(to_tsquery('english'::regconfig, t.q)) > 0 AND EXISTS ("
                "SELECT 1 FROM catalogue_food WHERE search_vector @@ "
                "to_tsquery('english'::regconfig, t.q) "
                "AND (%s::varchar IS NULL OR market_id = %s::varchar))",
                (distinct, queries, market, market),
            )
            return {row[0] for row in cursor.fetchall()}
    foods = Food.objects.using(catalogue_read_alias())
    if market:
        foods = foods.filter(market_id=market)
    return {term for term in distinct if match(foods, term).exists()}


# foods_about counts up to this many foods per word.
ABOUT_CAP = 100


def foods_about(terms: list[str], market: str | None) -> dict[str, int]:
    """How many reference (non-branded) foods of ``market`` (None: any) each of
    ``terms`` is *about* (a ``search_heads`` key of one word: "Turkey, ground" is about
    turkey; not a dish), counting up to ``ABOUT_CAP``."""
    stems = {term: text.stem(term) for term in dict.fromkeys(terms)}
    if connection.vendor == "postgresql":
        with prepared_cursor(catalogue_read_alias()) as cursor:
            cursor.execute(
                "SELECT k, (SELECT count(*) FROM (SELECT 1 FROM catalogue_food_phrase "
                "WHERE phrase = k AND tier = 0 "
                "AND (%s::varchar IS NULL OR market_id = %s::varchar) LIMIT %s) s) "
                "FROM unnest(%s::text[]) AS k",
                (market, market, ABOUT_CAP, sorted(set(stems.values()))),
            )
            counts = dict(cursor.fetchall())
        return {term: counts.get(key, 0) for term, key in stems.items()}
    found = {}
    for term, key in stems.items():
        foods = (
            Food.objects.using(catalogue_read_alias())
            .filter(search_heads__contains=f"|{key}|")
            .filter(Q(variant_count__isnull=True) | Q(variant_count__gt=0))
            .exclude(data_type=BRANDED)
            .annotate(dish=Coalesce("rank_quality", Value(UNRANKED_QUALITY)).bitand(DISH_BIT))
            .filter(dish=0)
        )
        if market:
            foods = foods.filter(market_id=market)
        found[term] = foods.order_by()[:ABOUT_CAP].count()
    return found
