"""The food list and search (issue 3, point 3): a page of foods for a query, and the
first ids of a search (``food_top_ids``, for the analysis).

Contracts: every function takes the market the caller may see (None: all markets) and
never returns a record outside it; a missing or invisible record is ``NotFound``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from django.db.models import Count, Q, QuerySet, Window

from catalogue.delivery import rendering
from catalogue.models import Category, Food
from catalogue.nutrients import BY_SLUG
from catalogue.search import matching, ordering, spelling, suggest, synonyms, text
from catalogue.search.budget import checkpoint
from catalogue.search.paging import Position
from catalogue.search.params import FoodQuery, Sort
from core import problems

# Matches are counted up to these many; meta.total_exact says whether the count is
# exact. A search counts up to the Taster depth (spec 8.2: what a Taster may read):
# counting all of a common word's 20k matches would cost more than finding the page.
COUNT_CAP = 10_000
SEARCH_COUNT_CAP = 1_000


@dataclass(frozen=True, slots=True)
class Relaxed:
    """A search made with fewer words than typed (``meta.relaxed``): ``searched`` is the
    query searched, ``dropped`` the words of q (after synonyms) left out, in typed order."""

    dropped: tuple[str, ...]
    searched: str


@dataclass(frozen=True, slots=True)
class FoodPage:
    """One page of a food list. ``rows`` are the ranking's sort keys (with ``id``) and
    ``summary``, each food's summary as rendered JSON bytes; ``next`` is where
    the following page starts (None on the last visible page); ``total`` counts the
    matches up to ``SEARCH_COUNT_CAP`` (a search) or ``COUNT_CAP`` (a listing without
    q), ``total_exact`` False beyond. ``corrected_q``: the query searched instead of
    ``q`` when ``q`` (nearly) matched nothing (catalogue.search.spelling) or was a weak long
    query searched without some of its words (catalogue.search.matching.relaxed), else None.
    ``synonyms``: the synonyms ``q`` was searched with (catalogue.search.synonyms).
    ``relaxed``: set when words of ``q`` were left out (``corrected_q`` is then the
    query searched too), else None. ``words``: the vocabulary entries of q's words
    when the page's statement read them (catalogue.search.matching.phrase_page), for
    the spelling fallback; not shown."""

    rows: list[dict[str, Any]]
    offset: int
    total: int
    total_exact: bool
    next: Position | None
    corrected_q: str | None = None
    synonyms: tuple[synonyms.Used, ...] = ()
    relaxed: Relaxed | None = None
    words: Mapping[str, spelling.Word] | None = None


def food_search(
    *, query: FoodQuery, market: str | None, depth: int | None, position: Position
) -> FoodPage:
    """The page of foods matching ``query`` at ``position``, within ``market``.

    ``depth`` (Taster: 1,000; None on paid tiers) is how far into the list the caller
    may read (spec 8.2): a page starting at or past it is ``ResultDepthExceeded`` when
    matches lie there, and the last page before it is cut at it. A page past the end of
    the list is ``InvalidParameter`` naming ``page`` (or ``cursor``). ``total`` counts
    a search's matches up to ``SEARCH_COUNT_CAP``, a listing's up to ``COUNT_CAP``.

    A search's words are first replaced by the market's synonyms (catalogue.search.synonyms:
    "aubergine" is searched as "eggplant" in market US), reported in ``synonyms``.
    A search with fewer than ``FALLBACK_BELOW`` matches is retried with its rare or
    unknown words corrected in the market's vocabulary (catalogue.search.spelling.correct);
    when that finds more foods holding the query's words as whole words (not only as a
    prefix: "swee" finds "sweet"), its page is returned with ``corrected_q`` set.
    Otherwise a relevance-sorted query of three or more words whose first result is
    weak is relaxed (catalogue.search.matching.relaxed: "atlantic salmon fillet" is searched as
    "atlantic salmon"), decided on its first result whatever the page, and reported
    in ``corrected_q`` the same way. A search that still matches nothing is searched
    with fewer of its words, down to one (catalogue.search.matching.widened: ``peanut
    butter jelly toast`` as ``peanut butter jelly``), whatever the sort. Both
    relaxations are reported in ``relaxed`` too (the words left out). All are pure
    functions of ``q``, the market and the catalogue (time budgets aside), so every
    page of the search (and its cursors) agrees.
    """
    expected = len(ordering.columns_for(query.sort))
    if position.key is not None and len(position.key) != expected:
        raise problems.InvalidParameter("cursor", "The cursor is outdated; start over.")
    used: tuple[synonyms.Used, ...] = ()
    if query.q:
        searched, used = synonyms.rewrite(query.q, market)
        query = replace(query, q=searched)
    try:
        page: FoodPage | None
        page, completed = _page(query, market, depth, position)
        if completed is not None:
            corrected = completed if completed != query.q else None
            return replace(page, corrected_q=corrected, synonyms=used)
    except problems.InvalidParameter as error:
        if not query.q:
            raise
        page, past_end = None, error
    if query.q and (page is None or page.total < FALLBACK_BELOW):
        checkpoint()
        known = page.words if page is not None else None
        fixed = spelling.correct(query.q, market, known=known)
        if fixed is not None:
            # Counted up to one more than the query typed finds (often none: one row).
            found = 0 if page is None or page.total == 0 else _whole_words(query.q, query, market)
            if _whole_words(fixed, query, market, cap=found + 1) > found:
                alternative, completed = _page(replace(query, q=fixed), market, depth, position)
                return replace(alternative, corrected_q=completed or fixed, synonyms=used)
    if query.q and query.sort.key == "relevance":
        checkpoint()
        first = page.rows[0] if page is not None and page.offset == 0 and page.rows else None
        relaxed = matching.relaxed(
            query.q,
            lambda q: first if q == query.q and first else _first_key(query, q, market),
            lambda terms: spelling.foods_holding(terms, market),
            lambda terms: matching.foods_about(terms, market),
            lambda terms: matching.words_found(terms, market),
        )
        if relaxed is not None:
            alternative, completed = _page(replace(query, q=relaxed), market, depth, position)
            return _relaxed(alternative, query.q, relaxed, used, completed)
    if query.q and _empty(page, query, market):
        checkpoint()
        wider = _widened_q(query, market)
        if wider is not None:
            alternative, completed = _page(replace(query, q=wider), market, depth, position)
            return _relaxed(alternative, query.q, wider, used, completed)
    if page is None:
        raise past_end
    return replace(page, synonyms=used) if used else page


def _page(
    query: FoodQuery, market: str | None, depth: int | None, position: Position
) -> tuple[FoodPage, str | None]:
    """``_food_page`` of ``query``; when its last word is too broad a prefix
    (``_TooBroad``), the page of q with that word completed (or kept, when it is a
    word) and searched whole, and the q searched (None: q as given). Every search
    ``food_search`` makes (q, its spelling correction, a relaxed or widened q) goes
    through here: a widened ``xqzv che`` is ``che``, a prefix of 30,813 foods."""
    try:
        return _food_page(query, market, depth, position), None
    except _TooBroad:
        completed = _completed(query.q, market)
        searched = replace(query, q=completed, prefix=False)
        return _food_page(searched, market, depth, position), completed


def _relaxed(
    page: FoodPage,
    q: str,
    fewer: str,
    used: tuple[synonyms.Used, ...],
    completed: str | None = None,
) -> FoodPage:
    """``page`` of ``fewer``, a search of fewer words than ``q`` (searched as
    ``completed`` when its last word was too broad a prefix), reported as such."""
    searched = completed or fewer
    kept = set(text.words(fewer))
    dropped = [
        t for t in dict.fromkeys(text.words(q)) if t not in kept and t not in text.STOP_WORDS
    ]
    relaxed = Relaxed(dropped=tuple(dropped), searched=searched)
    return replace(page, corrected_q=searched, synonyms=used, relaxed=relaxed)


def _empty(page: FoodPage | None, query: FoodQuery, market: str | None) -> bool:
    """Whether the search matches no food at all (``page`` None: a page past the end
    of its list, which says nothing about the first: asked)."""
    if page is not None:
        return page.total == 0
    return not matching.match(_filtered(query, market), query.q, prefix=query.prefix).exists()


def _widened_q(query: FoodQuery, market: str | None) -> str | None:
    """The query ``food_search`` searches instead of an empty one
    (catalogue.search.matching.widened), each smaller query tried with ``query``'s
    filters and judged on its first food by relevance."""
    ranked = replace(query, sort=Sort("relevance", False))

    def first(q: str) -> dict[str, Any] | None:
        # Any first food counts (not only a strong one, as ``_first_key`` reads them):
        # a widened query needs a match, on either backend alike.
        keys = _top_keys(replace(ranked, q=q), market, 1)
        return keys[0] if keys else None

    return matching.widened(
        query.q,
        first,
        lambda terms: spelling.foods_holding(terms, market),
        lambda terms: matching.foods_about(terms, market),
        lambda terms: matching.words_found(terms, market),
    )


# A search whose matches below the phrase index (catalogue.search.matching: relevance 1 and 0,
# ranked by an expression over every such row) are more than this is not ranked over
# all of them: its last word is a prefix held by too many foods (``che``: 30,813, ``orga``:
# 18,088; 2 us a row, 90-360 ms, issue 36.1), and is searched completed instead
# (``_completed``). Counting up to the cap reads at most that many rows (1-10 ms).
TAIL_RANK_CAP = 1_000


class _TooBroad(Exception):
    """Raised by ``_ranked`` when its matches pass ``TAIL_RANK_CAP`` with the last word
    of q as a prefix; ``food_search`` and ``_top_keys`` search again with it completed."""


def _completed(q: str, market: str | None) -> str:
    """``q`` with its last word completed as ``/v1/suggest`` completes it first (the
    market's best word starting with it, the word itself included, after the word
    before it): ``che`` -> ``cheese``, ``chicken bre`` -> ``chicken breast``,
    ``butter`` -> ``butter``; its words as typed when nothing completes it."""
    terms = text.words(q)
    found = suggest.food_suggest(q=q, market=market, limit=1)
    return found[0].text if found else " ".join(terms)


def _first_key(query: FoodQuery, q: str, market: str | None) -> dict[str, Any] | None:
    """The sort key of the first food of the relevance-ranked search ``q`` (with
    ``query``'s filters), or None when it matches nothing. Where the phrase index ranks
    ``q``, only its rows are read: a first food below them (relevance under 2) is never
    strong enough for ``matching.relaxed``, so None stands for it."""
    searched = replace(query, q=q)
    if _phrase_ranked(searched):
        rows = matching.phrase_rows(q=q, market=market, after=None, offset=0, limit=1)
        return rows[0] if rows else None
    keys = _top_keys(searched, market, 1)
    return keys[0] if keys else None


def _whole_words(q: str, query: FoodQuery, market: str | None, *, cap: int | None = None) -> int:
    """How many foods (up to ``cap``, default ``FALLBACK_BELOW``) of the search hold
    every word of ``q`` as a whole word (the last one too, not only as a prefix)."""
    if not query.has_filters and matching.counts_in_sql(q):
        return matching.match_count(q=q, market=market, prefix=False, cap=cap or FALLBACK_BELOW)
    queryset = matching.match(_filtered(query, market), q, prefix=False)
    return queryset.order_by()[: cap or FALLBACK_BELOW].count()


# Searches with fewer matches than this try a spelling correction: a misspelling
# found in a few branded names ("mozarella": 5 foods) still yields to the common word
# (catalogue.search.spelling decides per word; a query this rare costs one more look-up).
FALLBACK_BELOW = 200


def _food_page(
    query: FoodQuery, market: str | None, depth: int | None, position: Position
) -> FoodPage:
    """``food_search`` without the spelling fallback."""
    phrased = _phrase_ranked(query)
    # A phrase-ranked search reads its page by written SQL (catalogue.search.matching):
    # the ORM's query of its matches is built only where one is read (a new search's
    # filter and match expressions were ~0.2 ms of its Python, issue 41.1).
    queryset = None if phrased else _matches(query, market)
    offset = position.offset
    parameter = "cursor" if query.cursor else "page"
    past_end = problems.InvalidParameter(parameter, "Past the end of the results.")
    if depth is not None and offset >= depth and offset > 0:
        deeper = (queryset if queryset is not None else _matches(query, market)).order_by()
        if deeper[depth : depth + 1].exists():
            raise problems.ResultDepthExceeded()
        raise past_end
    limit = query.page_size if depth is None else min(query.page_size, depth - offset)
    total = None
    cap = SEARCH_COUNT_CAP if query.q else COUNT_CAP
    words = None
    if phrased:
        keys, total, words = _phrase_page(query, market, position, limit + 1, listed=cap)
    else:
        assert queryset is not None
        start = 0 if position.key is not None else offset
        keys = _ranked(queryset, query, position.key, start, limit + 1)
    rows = _widened(keys)
    if offset > 0 and not rows:
        raise past_end
    if total is not None:
        pass  # counted while ranking the page
    elif phrased:  # the phrase matches, then (within the cap) all: one statement
        total = matching.phrase_total(q=query.q, market=market, prefix=query.prefix, cap=cap)
    else:
        assert queryset is not None
        total = queryset.order_by()[: cap + 1].count()
    more = len(rows) > limit and (depth is None or offset + limit < depth)
    rows = rows[:limit]
    columns = ordering.columns_for(query.sort)
    following = Position(offset + limit, ordering.key_of(rows[-1], columns)) if more else None
    return FoodPage(
        rows=rows,
        offset=offset,
        total=min(total, cap),
        total_exact=total <= cap,
        next=following,
        words=words,
    )


def _matches(query: FoodQuery, market: str | None) -> QuerySet:
    """The ORM's query of the search's matches: its filters, then its words."""
    queryset = _filtered(query, market)
    return matching.match(queryset, query.q, prefix=query.prefix) if query.q else queryset


def _filtered(query: FoodQuery, market: str | None) -> QuerySet:
    queryset = Food.objects.all()
    if market:
        queryset = queryset.filter(market_id=market)
    if query.variant_of:
        group = Food.objects.filter(public_id=query.variant_of)
        if market:
            group = group.filter(market_id=market)
        key = group.values_list("variant_key", flat=True).first()
        if key is None:
            raise problems.InvalidParameter("variant_of", f"No food {query.variant_of!r}.")
        queryset = queryset.filter(variant_key=key)
    elif query.q:
        # A search shows one food of each look-alike group (catalogue.search.variants).
        queryset = queryset.filter(Q(variant_count__isnull=True) | Q(variant_count__gt=0))
    if query.data_types:
        queryset = queryset.filter(data_type__in=query.data_types)
    if query.categories:
        ids = dict(Category.objects.filter(slug__in=query.categories).values_list("slug", "id"))
        unknown = sorted(set(query.categories) - set(ids))
        if unknown:
            raise problems.InvalidParameter("category", f"Unknown category {unknown[0]!r}.")
        queryset = queryset.filter(category_id__in=ids.values())
    if query.brand:
        queryset = queryset.filter(brand_key__startswith=query.brand)
    for bounds in query.ranges:
        column = BY_SLUG[bounds.slug].column
        if bounds.low is not None:
            queryset = queryset.filter(**{f"{column}__gte": bounds.low})
        if bounds.high is not None:
            queryset = queryset.filter(**{f"{column}__lte": bounds.high})
    return queryset


def _phrase_ranked(query: FoodQuery) -> bool:
    """Whether the phrase index ranks this search (catalogue.search.matching.phrase_rows): by
    relevance, one or two words, on PostgreSQL, filtered by market only."""
    return (
        query.sort.key == "relevance"
        and not query.has_filters
        and matching.phrase_of(query.q) is not None
    )


def _ranked(
    queryset: QuerySet | None,
    query: FoodQuery,
    after: tuple[Any, ...] | None,
    start: int,
    count: int,
    *,
    below_phrase: bool = False,
    phrases: int = 0,
    market: str | None = None,
    listed: bool = False,
) -> list[dict[str, Any]]:
    """Sort keys (with ``id``) of ``count`` matches from ``start`` on, or from the row
    after the key ``after``, ranked in the database on narrow tuples (id and sort keys
    only). ``below_phrase``: only the matches of relevance < 2 (those the phrase index
    does not hold), each row also carrying ``remaining``: how many of those the ranking
    scan saw (after ``after`` if given; a window count, so no second scan counts them).
    ``_TooBroad`` when the last word of q is a prefix and more than ``TAIL_RANK_CAP``
    matches (beyond the ``phrases`` phrase matches, when ``below_phrase``) would be
    ranked. ``queryset`` (the matches, ``_matches``) is read unless ``below_phrase``.
    ``listed`` (``below_phrase`` for a page of GET /v1/foods): the bound, the rows and
    their summaries in one statement (``matching.tail_page``)."""
    if below_phrase and listed:
        bound = phrases + TAIL_RANK_CAP if _bounded(query) else None
        rows = matching.tail_page(
            q=query.q,
            market=market,
            prefix=query.prefix,
            after=after,
            offset=start,
            limit=count,
            bound=bound,
        )
        if rows is None:
            raise _TooBroad
        return rows
    if _bounded(query):
        # Ranked on narrow tuples, but every match of the expression: bounded first.
        beyond = phrases + TAIL_RANK_CAP
        if below_phrase:  # a phrase-ranked search: filtered by market only
            found = matching.match_count(
                q=query.q, market=market, prefix=query.prefix, cap=beyond + 1
            )
        else:
            assert queryset is not None
            found = queryset.order_by()[: beyond + 1].count()
        if found > beyond:
            raise _TooBroad
    if below_phrase:  # written out in SQL (matching.tail_rows), not built by the ORM
        return matching.tail_rows(
            q=query.q, market=market, prefix=query.prefix, after=after, offset=start, limit=count
        )
    assert queryset is not None
    columns = ordering.columns_for(query.sort)
    if query.sort.key == "relevance":
        queryset = matching.with_relevance(queryset, query.q)
        if below_phrase:
            queryset = queryset.filter(relevance__lt=matching.PHRASE_RELEVANCE)
    if after is not None:
        queryset = queryset.filter(ordering.after(columns, after))
    queryset = queryset.order_by(*(column.order_by() for column in columns))
    keys = queryset.values(*(column.name for column in columns))
    if below_phrase:
        keys = keys.annotate(remaining=Window(Count("id")))
    return list(keys[start : start + count])


def _bounded(query: FoodQuery) -> bool:
    """Whether ``_ranked`` first bounds the matches it ranks (``TAIL_RANK_CAP``): a
    search whose last word is searched as a prefix."""
    return bool(query.q) and query.prefix and text.as_prefix(text.words(query.q), True)


def _phrase_page(
    query: FoodQuery,
    market: str | None,
    position: Position,
    count: int,
    *,
    listed: int | None = None,
) -> tuple[list[dict[str, Any]], int | None, Mapping[str, spelling.Word] | None]:
    """``count`` sort keys from ``position`` of a phrase-ranked search, the number of
    matches when reading them told it (else None), and the vocabulary entries of q's
    words when they were read (else None). The list is the phrase matches (relevance
    13..2, from the phrase index, in order) followed by the other matches (relevance
    1..0, ranked by ``_ranked``), which are only read when a page reaches past the
    phrase matches. ``listed`` (a page of GET /v1/foods: its count's cap): the phrase
    matches come with their summaries, the total (counted up to ``listed`` + 1 when
    they fill the page) and the entries, in one statement (``matching.phrase_page``)."""
    key = position.key
    if key is not None and key[0] < matching.PHRASE_RELEVANCE:
        # Counted only where _ranked's bound needs it (a prefix-searched last word).
        phrases = (
            matching.phrase_count(q=query.q, market=market, cap=None) if _bounded(query) else 0
        )
        tail = _ranked(
            None,
            query,
            key,
            0,
            count,
            below_phrase=True,
            phrases=phrases,
            market=market,
            listed=listed is not None,
        )
        return tail, position.offset + tail[0]["remaining"] if tail else None, None
    start = 0 if key is not None else position.offset
    words = None
    if listed is None:
        head = matching.phrase_rows(q=query.q, market=market, after=key, offset=start, limit=count)
        if len(head) == count:
            return head, None, None
    else:
        read = matching.phrase_page(
            q=query.q,
            market=market,
            prefix=query.prefix,
            after=key,
            offset=start,
            limit=count,
            cap=listed,
        )
        head, words = read.rows, read.words
        if len(head) == count:
            return head, read.total, words
    # The phrase matches end on this page: the others follow from their first.
    rest, phrases = 0, position.offset + len(head)
    if not head and key is None:  # the page starts past the phrase matches
        phrases = matching.phrase_count(q=query.q, market=market, cap=None)
        rest = start - phrases
    tail = _ranked(
        None,
        query,
        None,
        rest,
        count - len(head),
        below_phrase=True,
        phrases=phrases,
        market=market,
        listed=listed is not None,
    )
    if tail:
        return head + tail, phrases + tail[0]["remaining"], words
    # No other matches: the phrases are all.
    return head, phrases if rest == 0 else None, words


def _widened(keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of ``keys`` (in their order), each with ``summary``: the food's
    pre-rendered summary bytes (catalogue/delivery/rendering.py), fetched for the page only,
    never while ranking (bench/RESULTS.md); a key read with its current summary
    (``matching.phrase_page``) keeps it."""
    missing = [key["id"] for key in keys if key.get("summary") is None]
    found = rendering.summaries(missing) if missing else {}
    return [
        key if key.get("summary") is not None else key | {"summary": found[key["id"]]}
        for key in keys
    ]


def food_top_ids(
    *,
    q: str,
    market: str | None,
    limit: int,
    data_types: tuple[str, ...] = (),
    known_words: bool = True,
) -> list[int]:
    """Ids of the first ``limit`` foods of ``food_search``'s relevance-ranked list for
    ``q`` in ``market`` (of ``data_types`` only, if given), in its order: its words
    replaced by the market's synonyms and, when that matches nothing, corrected in the
    market's vocabulary, as ``food_search`` does ("1 aubergine" finds the eggplant in
    market US, a misspelt local name is corrected among its market's words). Only the
    ranking is read: no count, no summaries, no relaxation of a long query (POST
    /v1/analysis searches every line of a body this way, and drops words itself).

    ``known_words`` (issue 38.4): a word some food of the market holds is never
    corrected, and a correction is kept only when reference (non-branded) foods of the
    market hold every word of it, so an ingredient is never spelt into a product
    ("tatsoi" is not "tator", a word of one branded title); False corrects as
    ``food_search`` does (GET /v1/foods never calls this function).

    A search of some ``data_types`` (the analysis's second look among reference foods
    or SR28) reads its last word whole, not as a prefix: the line's words were already
    searched as typed, and a prefix search costs a count of its matches first
    (``_bounded``; ~5 ms of the ~14 such a search took on the full catalogue)."""
    searched, _ = synonyms.rewrite(q, market)
    query = FoodQuery(
        q=searched,
        data_types=data_types,
        sort=Sort("relevance", False),
        page_size=limit,
        prefix=not data_types,
    )
    ids = _top_ids(query, market, limit)
    if not ids:
        fixed = (_known_correction if known_words else spelling.correct)(searched, market)
        if fixed is not None:
            ids = _top_ids(replace(query, q=fixed), market, limit)
    return ids


# At most this many foods matching a name are read to find those it is another name of.
NAMED_SCAN = 500


def food_ids_named(
    *, name: str, market: str | None, data_types: tuple[str, ...], limit: int
) -> list[int]:
    """Ids of the foods of ``market`` (of ``data_types``) one of whose other names
    (``search_aliases``: SR28's common names, IFCT's local names) is ``name``, compared on
    stems ("hot dogs" is the common name "hot dog" of SR28's frankfurters; "spaghetti" of
    "Pasta, dry, enriched"), best ranked first (rank quality, then the shorter name).
    The search ranks a food matched only by another name below every name holding the
    words, so POST /v1/analysis asks for these apart (catalogue.analysis.selectors): one
    full-text match read from the index (``NAMED_SCAN`` rows at most), no ranking."""
    stems = frozenset(text.stem(word) for word in text.words(name))
    if not stems:
        return []
    query = FoodQuery(q=name, data_types=data_types, prefix=False)
    rows = (
        matching.match(_filtered(query, market), name, prefix=False)
        .exclude(search_aliases="")
        .values_list("id", "search_aliases", "rank_quality", "search_name")[:NAMED_SCAN]
    )
    named = [
        (quality if quality is not None else matching.UNRANKED_QUALITY, len(search), i)
        for i, aliases, quality, search in rows
        if any(
            frozenset(text.stem(w) for w in alias.split()) == stems for alias in aliases.split("|")
        )
    ]
    return [i for *_, i in sorted(named)[:limit]]


def _known_correction(q: str, market: str | None) -> str | None:
    """``q`` with each word no food of ``market`` holds corrected (``spelling.correct``)
    into words reference foods of it hold; None when no word changes."""
    terms = text.words(q)
    held = spelling.vocabulary_entries(terms, market)
    out, changed = [], False
    for term in terms:
        fixed = None if term in held else spelling.correct(term, market)
        if fixed is not None:
            entries = spelling.vocabulary_entries(fixed.split(), market)
            if not all(w in entries and entries[w].reference for w in fixed.split()):
                fixed = None
        out.append(fixed or term)
        changed = changed or fixed is not None
    return " ".join(out) if changed else None


def _top_ids(query: FoodQuery, market: str | None, limit: int) -> list[int]:
    return [key["id"] for key in _top_keys(query, market, limit)]


def _top_keys(query: FoodQuery, market: str | None, limit: int) -> list[dict[str, Any]]:
    try:
        if _phrase_ranked(query):
            keys, _, _ = _phrase_page(query, market, Position(0), limit)
        else:
            keys = _ranked(_matches(query, market), query, None, 0, limit)
    except _TooBroad:
        return _top_keys(replace(query, q=_completed(query.q, market), prefix=False), market, limit)
    return keys
