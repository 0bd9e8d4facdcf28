"""``analysis_run``: ingredient lines -> foods, grams and nutrients (issue 26).

Each line is parsed (catalogue.analysis.parser), its food words searched with the
catalogue's own search (``catalogue.search.selectors.food_top_ids``: ``food_search``'s relevance
order, whole foods first); its top ``CANDIDATES`` are put in the order of what a line usually means
(catalogue.analysis.choosing), and the first of the ``WEIGHED`` best that can weigh the
line (catalogue.analysis.weighing) is the match; the next three are its
``alternatives``. FNDDS and most Foundation foods have no household measures: when the
best food is one of them and no reference food of its kind adding one word more (nor,
for the search, any adding one word more) can weigh the line, an SR28 food of its kind
lends its measure (``_lent``), named in ``portion``. So does the SR28 food the table
``catalogue/data/measure_lenders.csv`` gives as the same food under another name (an
IFCT food of market IN: "Ghee" weighs as "Butter oil, anhydrous"; catalogue.analysis.
lending, issue 38.1), first; the lender search looks among the SR28 foods whatever the
market (they are market US's), and either lends only to a food the line names.
Candidates are put in the order of meaning against the line's words as searched (after
the market's synonyms: "toor dal" is "red gram dal", so "Red gram, dal" comes first).
When every word together matches nothing, the search retries without the first word
("extra virgin olive oil" -> "virgin olive oil" -> "olive oil"), up to ``RETRIES`` times.

Nutrients are the record's ``nutrients_per_100g`` keys (catalogue.nutrients.HEADLINES)
scaled to the line's grams; a nutrient a matched food does not report is null on that
line and listed in ``incomplete`` (its total sums the lines that report it).

Its steps ``food_rows`` (the reads), ``line_result`` (weighing and choosing one line's
food) and ``analysis_summed`` (the totals) are public: bench/scripts/analysis_speed.py
times each.

Contracts: one result per line, in order; never raises for a line's content. Reads:
one search per distinct food text (a line repeated costs nothing more), one query for
every candidate's name, one for the measures and nutrients of those tried and of the
SR28 candidates that may lend a measure and of the table's lenders of the best
foods (one query for both); an SR28 search (and two reads) per distinct
food text only where no candidate can lend and no near food can weigh.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, connections
from django.db.models import Q

from catalogue.analysis import dishes, eaten, lending, sentences
from catalogue.analysis.choosing import (
    CUTS,
    alias_words,
    by_meaning,
    complete_first,
    meaning,
    narrowed,
    same_kind,
    tier,
)
from catalogue.analysis.parser import ParsedLine, parse_line
from catalogue.analysis.weighing import Weighing, overweight, weigh
from catalogue.models import DataType, Food
from catalogue.nutrients import HEADLINES, NET_CARBS, headline_amounts
from catalogue.routing import catalogue_read_alias
from catalogue.search.budget import checkpoint, read_budget
from catalogue.search.matching import foods_about
from catalogue.search.selectors import food_ids_named, food_top_ids
from catalogue.search.synonyms import rewrite

CANDIDATES = 50
ALTERNATIVES = 3
RETRIES = 2
# Reference foods: searched again alone when only branded ones came first.
REFERENCE = (DataType.SR_LEGACY, DataType.FOUNDATION, DataType.SURVEY, DataType.IFCT)
# Of the candidates in the order of meaning, this many are read whole and tried.
WEIGHED = 20
# A reference food of the best one's kind with its own measure, adding at most this
# many words more than the best one, is matched before the best borrows one (``_lent``).
LENT_AFTER = 1
# A line's nutrients and the totals: the record's nutrients_per_100g keys, net_carbs_g
# (worked out from two of them, never stored) last.
NUTRIENT_KEYS = (*(h.column for h in HEADLINES), NET_CARBS)
# With the values a plate's survey record is weighed against its lean kin by
# (catalogue.analysis.eaten.lean_first): fat, and protein and carbohydrate.
_EATEN_VALUES = ("fat_g", "protein_g", "carbohydrate_g")
_NAME_FIELDS = (
    "id", "public_id", "name", "data_type", "market_id", "search_aliases", *_EATEN_VALUES
)  # fmt: skip
_WEIGHT_FIELDS = ("id", "portions", *(h.column for h in HEADLINES))
# The fields of a lender named by the table, read by public id.
_LENDER_FIELDS = ("id", "public_id", "name", "data_type", "portions")


@dataclass(frozen=True, slots=True)
class Analysis:
    """``lines``: one result object per line (the API's shape); ``totals``: the sum of
    the matched lines per nutrient; ``incomplete``: nutrients some matched food does
    not report."""

    lines: list[dict[str, Any]]
    totals: dict[str, float | None]
    incomplete: list[str] = field(default_factory=list)


def analysis_run(
    *, lines: list[str], market: str | None, nutrition_type: str = "cooking"
) -> Analysis:
    """The analysis of ``lines`` among the foods of ``market`` (None: every market),
    read as a recipe (``nutrition_type`` "cooking": foods as bought) or as a plate
    ("logging": foods as eaten, catalogue.analysis.eaten, issue 39.4); its reads under
    the analysis's time budget (catalogue.search.budget: ``QueryTimeout`` past it)."""
    with read_budget("analysis"):
        return _analysis(lines, market, nutrition_type)


def sentence_run(
    *, found: list[sentences.Piece], market: str | None, nutrition_type: str = "logging"
) -> tuple[list[str], Analysis]:
    """The items of a sentence's pieces ``found`` (catalogue.analysis.sentences: a soft
    cut joining a dish of ``market`` joined back, one query for every cut, issue 39.3)
    and their analysis as lines (as eaten unless ``nutrition_type`` is "cooking"), under
    one analysis's time budget."""
    with read_budget("analysis"):
        joined = dishes.named(sentences.joins(found, market), market)
        items = sentences.items(found, joined)
        return items, _analysis(items, market, nutrition_type)


def _analysis(lines: list[str], market: str | None, nutrition_type: str = "cooking") -> Analysis:
    parsed = [parse_line(line) for line in lines]
    found: dict[str, list[int]] = {}
    for line in parsed:
        if line.food and line.food not in found:
            found[line.food] = _candidates(line.food, market)
    names = food_rows({i for ids in found.values() for i in ids}, _NAME_FIELDS)
    asked = {line.food: _asked(line, market) for line in parsed}
    food = {line.food: rewrite(line.food, market)[0] for line in parsed if line.food}
    cut = {line.food for line in parsed if CUTS.intersection(line.preparation)}
    ordered = {
        words: _by_meaning(ids, names, asked[words], cut=words in cut, food=food[words])
        for words, ids in found.items()
    }
    for words, ids in ordered.items():
        if ids and tier(names[ids[0]]["data_type"]) > 0:
            # No reference food among the first: branded titles holding the words as a
            # phrase ("ALL PURPOSE FLOUR") outrank "Wheat flour, white, all-purpose".
            reference = _candidates(words, market, REFERENCE) or _narrowed(words, market)
            more = [i for i in reference if i not in found[words]]
            names |= food_rows({i for i in more if i not in names}, _NAME_FIELDS)
            ordered[words] = _by_meaning(
                more + found[words], names, asked[words], cut=words in cut, food=food[words]
            )
    _named_otherwise(ordered, names, asked, cut, food, market)
    if nutrition_type == "logging":
        mashed = {line.food for line in parsed if eaten.MASHED.intersection(line.preparation)}
        _as_eaten(ordered, names, asked, cut, food, market, mashed=mashed)
    else:
        for words, ids in ordered.items():
            order = eaten.bought_first(_pairs(ids, names), asked[words], cut=words in cut)
            ordered[words] = [ids[k] for k in order]
    weighed = food_rows({i for ids in ordered.values() for i in ids[:WEIGHED]}, _WEIGHT_FIELDS)
    kin = {words: _kin(ids, names) for words, ids in ordered.items()}
    # The table's lenders of each food text's best food, read with its kin: one query.
    lent_ids = {
        words: lending.lender_of(names[ids[0]]["public_id"])
        for words, ids in ordered.items()
        if ids
    }
    kin_ids = {i for ids in kin.values() for i in ids} - weighed.keys()
    more = food_rows(kin_ids, _WEIGHT_FIELDS, public_ids={p for p in lent_ids.values() if p})
    by_public_id = {row["public_id"]: row for row in more.values() if "public_id" in row}
    weighed |= {i: row for i, row in more.items() if i in kin_ids}
    searched = _Lenders(asked, cut, market)
    results = [
        line_result(
            text,
            line,
            [names[i] | weighed.get(i, {}) for i in ordered.get(line.food, [])],
            [names[i] | weighed[i] for i in kin.get(line.food, []) if i in weighed],
            searched,
            matchable=searched.in_market,
            equivalent=by_public_id.get(lent_ids.get(line.food) or ""),
            asked=asked.get(line.food),
        )
        for text, line in zip(lines, parsed, strict=True)
    ]
    return analysis_summed(results)


def _named_otherwise(
    ordered: dict[str, list[int]],
    names: dict[int, dict[str, Any]],
    asked: dict[str, str],
    cut: set[str],
    food: dict[str, str],
    market: str | None,
) -> None:
    """The reference foods another name of which (SR28's common names, IFCT's local
    names: catalogue.search.selectors.food_ids_named) is a line's food words, added to
    its candidates and ordered with them (catalogue.analysis.choosing.by_meaning puts
    them first among foods as near), in place: "8 oz spaghetti" is SR28's "Pasta, dry,
    enriched" (common names "macaroni product, spaghetti, ..."), which the search ranks
    below "Squash, spaghetti" and "Spaghetti sauce". Only for a food text no reference
    candidate names whole (the best adds a word or is branded): one query each."""
    for words, ids in ordered.items():
        core = alias_words(food.get(words) or words)
        best = names[ids[0]] if ids else None
        if not core or (best and meaning(best["name"], best["data_type"], asked[words]) == (0, 0)):
            continue
        checkpoint()  # the analysis's deadline, before each query
        found = food_ids_named(name=core, market=market, data_types=REFERENCE, limit=WEIGHED)
        more = [i for i in found if i not in set(ids)]
        if not more:
            continue
        names |= food_rows(set(more) - names.keys(), _NAME_FIELDS)
        ordered[words] = _by_meaning(
            ids + more, names, asked[words], cut=words in cut, food=food[words]
        )


def _as_eaten(
    ordered: dict[str, list[int]],
    names: dict[int, dict[str, Any]],
    asked: dict[str, str],
    cut: set[str],
    food: dict[str, str],
    market: str | None,
    *,
    mashed: set[str] | frozenset[str] = frozenset(),
) -> None:
    """``ordered`` (each food text's candidates in the order of meaning) put in the order
    a plate means them (catalogue.analysis.eaten, issue 39.4), in place. A food text
    whose candidates hold no cooked form near enough, for a line stating no state of a
    food not eaten raw, is searched once more with "cooked" ("brown rice cooked"), its
    new foods read with those of every such text (one query) and ordered with the
    others: at most one search more a food text, none for a line repeated. Each food
    text's candidates are ordered with their fat, protein and carbohydrate (read with
    their names): a survey record whose fat the survey assumed comes after its lean kin
    (eaten.lean_first, issue 38), unless a line of the text is ``mashed`` (its
    preparation makes a dish with fat of the food: eaten.MASHED)."""

    more: dict[str, list[int]] = {}
    for words, ids in ordered.items():
        if ids and eaten.wants_cooked(_pairs(ids, names), asked[words], cut=words in cut):
            held = set(ids)
            found = _candidates(f"{words} cooked", market, retries=0)
            more[words] = [i for i in found if i not in held]
    names |= food_rows({i for ids in more.values() for i in ids} - names.keys(), _NAME_FIELDS)
    for words, extra in more.items():
        if extra:
            ordered[words] = _by_meaning(
                ordered[words] + extra, names, asked[words], cut=words in cut, food=food[words]
            )
    for words, ids in ordered.items():
        values = None if words in mashed else [names[i] for i in ids]
        order = eaten.eaten_first(_pairs(ids, names), asked[words], cut=words in cut, values=values)
        ordered[words] = [ids[k] for k in order]


class _Lenders:
    """SR28 foods that may lend their measure to a reference food that has none, when
    no candidate of its kind can: the SR28 search of a line's words (retried without
    the first word, like any search), in the order of meaning, its ``WEIGHED`` best
    read whole. One search per distinct food text, only for the lines that need it.
    SR28 is market US's: searched among every market's foods (with market US's synonyms,
    "brinjal" is eggplant there), whatever market the analysis runs in (issue 38.1)."""

    def __init__(self, asked: dict[str, str], cut: set[str], market: str | None = None) -> None:
        self.asked, self.cut, self.market = asked, cut, market
        self.found: dict[str, list[dict[str, Any]]] = {}

    def __call__(self, words: str) -> list[dict[str, Any]]:
        if words not in self.found:
            ids = _candidates(words, None, (DataType.SR_LEGACY,), retries=RETRIES)
            names = food_rows(set(ids), _NAME_FIELDS)
            best = _by_meaning(ids, names, self.asked[words], cut=words in self.cut)[:WEIGHED]
            rows = food_rows(set(best), _WEIGHT_FIELDS)
            self.found[words] = [names[i] | rows[i] for i in best if i in rows]
        return self.found[words]

    def in_market(self, words: str) -> list[dict[str, Any]]:
        """Those of the analysis's market (every market's when None): foods a line may
        be matched to itself, not only borrow a measure from."""
        return [f for f in self(words) if self.market in (None, f["market_id"])]


def _kin(ids: list[int], names: dict[int, dict[str, Any]]) -> list[int]:
    """The SR28 foods among the candidates ``ids`` (in the order of meaning) of the same
    kind as the first, when the first is a reference food of another data type: those
    that may lend it a measure (FNDDS and most Foundation foods have none)."""
    if not ids or tier(names[ids[0]]["data_type"]) > 0:
        return []
    first = names[ids[0]]
    if first["data_type"] == DataType.SR_LEGACY:
        return []
    return [
        i
        for i in ids[1:]
        if names[i]["data_type"] == DataType.SR_LEGACY
        and same_kind(first["name"], names[i]["name"])
    ]


def _asked(line: ParsedLine, market: str | None = None) -> str:
    """What the line asks of a name: its food words as searched in ``market`` (after its
    synonyms: "toor dal" is "red gram dal" in market IN, issue 38.7), and its count
    word."""
    food = rewrite(line.food, market)[0] if line.food else line.food
    counted = line.unit is not None and line.unit.kind == "count"
    return f"{food} {line.unit.name}" if counted else food  # type: ignore[union-attr]


def food_rows(
    ids: set[int], fields: tuple[str, ...], *, public_ids: set[str] | None = None
) -> dict[int, dict[str, Any]]:
    """``fields`` of the foods ``ids`` and of those whose public id is in ``public_ids``
    (those rows hold ``_LENDER_FIELDS`` too), by id. On PostgreSQL one ``= ANY(array)``
    query where the catalogue is read: a few thousand ids (100 lines x 50 candidates)
    cost a fifth of the ORM's ``IN`` list of as many parameters (bench/RESULTS.md)."""
    if public_ids:
        fields = tuple(dict.fromkeys((*fields, *_LENDER_FIELDS)))
    if not ids and not public_ids:
        return {}
    if connection.vendor != "postgresql":
        found = Food.objects.filter(Q(id__in=ids) | Q(public_id__in=public_ids or ()))
        return {row["id"]: row for row in found.values(*fields)}
    sql = f"SELECT {', '.join(fields)} FROM catalogue_food WHERE id = ANY(%s)"  # noqa: S608 (constant columns)
    params: list[Any] = [sorted(ids)]
    if public_ids:
        sql += " OR public_id = ANY(%s)"
        params.append(sorted(public_ids))
    with connections[catalogue_read_alias()].cursor() as cursor:
        cursor.execute(sql, params)
        rows = [dict(zip(fields, row, strict=True)) for row in cursor.fetchall()]
    for row in rows:  # Django's psycopg setup hands json columns over as text
        if isinstance(row.get("portions"), str):
            row["portions"] = json.loads(row["portions"])
    return {row["id"]: row for row in rows}


def _pairs(ids: list[int], names: dict[int, dict[str, Any]]) -> list[tuple[str, str]]:
    """``(name, data_type)`` of each of ``ids``, as catalogue.analysis's pure rules read them."""
    return [(names[i]["name"], names[i]["data_type"]) for i in ids]


def _by_meaning(
    ids: list[int],
    names: dict[int, dict[str, Any]],
    words: str,
    *,
    cut: bool = False,
    food: str | None = None,
) -> list[int]:
    """``ids`` in the order of meaning (catalogue.analysis.choosing.by_meaning); among
    foods that mean the line equally (the same tier, as many words unasked), the name
    holding more of the line's food words (``food``, as searched; not its count word)
    first: "toor dal", searched as "red gram dal", is "Red gram, dal" before "Red gram,
    whole", whose usual-form word would put it first (issue 38.7)."""
    present = [i for i in ids if i in names]
    foods = _pairs(present, names)
    aliases = [names[i].get("search_aliases") or "" for i in present]
    order = by_meaning(foods, words, cut=cut, food=food, aliases=aliases)
    return [present[k] for k in order]


def _narrowed(words: str, market: str | None) -> list[int]:
    """Ids of the top reference foods for ``words`` with one describing word left out
    (catalogue.analysis.choosing.narrowed: "cherry tomatoes" -> "tomatoes"), the first
    variant finding any; for a line no reference food holds whole, whose branded titles
    came first (issue 38.4). One count query, and a search per variant tried (at most
    ``NARROWED_MAX_WORDS``), only for such lines."""
    for fewer in narrowed(words, lambda terms: foods_about(terms, market)):
        ids = _candidates(fewer, market, REFERENCE)
        if ids:
            return ids
    return []


def _candidates(
    words: str, market: str | None, data_types: tuple[str, ...] = (), *, retries: int = -1
) -> list[int]:
    """Ids of the top foods for ``words`` (of ``data_types`` only, if given); retried
    without the first word when it finds nothing, ``retries`` times (default: a search
    of every data type ``RETRIES`` times, of some data types none)."""
    terms = words.split()
    if retries < 0:
        retries = 0 if data_types else RETRIES
    for _ in range(retries + 1):
        checkpoint()  # the analysis's deadline (catalogue.search.budget), before each search
        ids = food_top_ids(
            q=" ".join(terms), market=market, limit=CANDIDATES, data_types=data_types
        )
        if ids or len(terms) == 1:
            return ids
        terms = terms[1:]
    return []


def line_result(
    text: str,
    line: ParsedLine,
    candidates: list[dict[str, Any]],
    lenders: list[dict[str, Any]] | None = None,
    searched: Callable[[str], list[dict[str, Any]]] | None = None,
    *,
    matchable: Callable[[str], list[dict[str, Any]]] | None = None,
    equivalent: dict[str, Any] | None = None,
    asked: str | None = None,
) -> dict[str, Any]:
    """The result object of one line (``text``, parsed as ``line``) among its
    ``candidates`` in the order of meaning; ``lenders`` and ``searched``: SR28 foods
    that may lend a measure (``_lent``); ``matchable``: those of them in the analysis's
    market, which may be matched themselves; ``equivalent``: the SR28 food the table gives
    as the first candidate's equivalent (catalogue.analysis.lending), tried first;
    ``asked``: the line's words as searched (``_asked``)."""
    base: dict[str, Any] = {
        "text": text,
        "quantity": line.quantity,
        "unit": line.unit.name if line.unit else None,
    }
    if line.low is not None:
        base["range"] = {"low": line.low, "high": line.high}  # quantity is their mean
    if line.unreadable:  # a number the parser could not place: never a wrong amount
        return base | _unmatched(line.unreadable)
    if not line.food:
        return base | _unmatched("No food named: write what was eaten, e.g. '1 cup milk'.")
    if not candidates:
        return base | _unmatched(f"No food found for {line.food!r}.")
    tried = candidates[:WEIGHED]
    # Of one food's records, those reporting every headline nutrient first (issue 38.4).
    tried = [tried[k] for k in complete_first(tried)]
    first = tried[0]
    asked, cut = asked or _asked(line), bool(CUTS.intersection(line.preparation))
    can_lend = bool(lenders or searched or equivalent)
    best = meaning(first["name"], first["data_type"], asked, cut=cut)

    def answer(food: dict[str, Any], weighing: Weighing) -> dict[str, Any]:
        assert weighing.grams is not None  # only a weighing that weighed the line
        others = [c for c in candidates if c is not food][:ALTERNATIVES]
        if refusal := overweight(weighing):  # over MAX_GRAMS: refused, whichever food
            refs = [_ref(c) for c in [food, *others][:ALTERNATIVES]]
            return base | _unmatched(refusal, alternatives=refs)
        return base | _matched(food, weighing.grams, weighing.portion, others)

    reason, own = None, None  # own: the first tried food that weighs the line itself
    for food in tried:
        weighing = weigh(line, food["portions"] or [], food_words=line.food, name=food["name"])
        if weighing.grams is not None:
            own = (food, weighing)
            break
        reason = reason or f"{food['name']}: {weighing.reason}"
    near = False  # a reference food with its own measure, one word more than the best
    if own is not None:
        rank = meaning(own[0]["name"], own[0]["data_type"], asked, cut=cut)
        near = rank <= (best[0], best[1] + LENT_AFTER)
        close = near and same_kind(first["name"], own[0]["name"])
        if rank == best or close or best[0] > 0 or not can_lend:
            fitting = _same_food_fitting(*own, line, tried, equal=rank, asked=asked, cut=cut)
            return answer(*fitting)
    if (
        best[0] == 0
        and first["data_type"] != DataType.SR_LEGACY
        and can_lend
        and lending.names_food(
            first["name"], first.get("search_aliases") or "", asked, equivalent=bool(equivalent)
        )
    ):
        # No reference food as good as the best one, nor one of its kind adding one
        # word more, has a measure for the line: the SR28 food the table gives as the
        # same food, else an SR28 food of the best one's kind (among the candidates;
        # else, when no near food can weigh the line either, found by an SR28 search
        # of the line's words) lends its own, said so in ``portion``; only to a food
        # the line names (lending.names_food).
        if equivalent and any(c["id"] == equivalent["id"] for c in candidates):
            # The same food with its own measure is a candidate (every market's foods):
            # matched itself, the reference of the measure.
            weighing = weigh(line, equivalent["portions"] or [], food_words=line.food,
                             name=equivalent["name"])  # fmt: skip
            if weighing.grams is not None:
                return answer(equivalent, weighing)
        lent = _lent(first, line, [equivalent], same=False) if equivalent else None
        lent = lent or _lent(first, line, lenders or [])
        if lent is None and searched is not None and not near:
            lent = _lent(first, line, searched(line.food))
        if lent is not None:
            return answer(first, lent)
    if best[0] == 0 and (own is None or tier(own[0]["data_type"]) > 0):
        # A reference food came first but neither it nor its kin weighs the line, and
        # no food does or the first that does is branded: an SR28 food meaning the
        # line nearly as well (one word more at most) with its own measure is matched
        # before a product's label serving (issue 38.4: "2 tbsp tomato paste" is
        # "Tomato products, canned, paste" at 16 g a tablespoon, not "TOMATO PASTE" at
        # 18) or no answer ("1 cup black coffee": "Coffee, brewed" of FNDDS has no cup).
        for food in matchable(line.food) if matchable is not None else []:
            if meaning(food["name"], food["data_type"], asked, cut=cut) <= (0, best[1] + 1):
                weighing = weigh(line, food["portions"] or [], food_words=line.food,
                                 name=food["name"])  # fmt: skip
                if weighing.grams is not None:
                    return answer(food, weighing)
    if own is not None:
        return answer(*_same_food_fitting(*own, line, tried))
    others = candidates[:ALTERNATIVES]
    return base | _unmatched(reason or "", alternatives=[_ref(c) for c in others])


def _lent(
    food: dict[str, Any], line: ParsedLine, lenders: list[dict[str, Any]], *, same: bool = True
) -> Weighing | None:
    """The weighing of ``line`` by the first of ``lenders`` of the same kind as ``food``
    (any of them when not ``same``: the table's equivalent) that can weigh it, its
    ``portion`` naming the lender."""
    for lender in lenders:
        if lender["id"] == food["id"] or (same and not same_kind(food["name"], lender["name"])):
            continue
        weighing = weigh(line, lender["portions"] or [], food_words=line.food, name=lender["name"])
        if weighing.grams is not None:
            portion = f"{weighing.portion or ''} (measure of {lender['name']})".strip()
            return Weighing(weighing.grams, portion=portion, fits=weighing.fits)
    return None


def _same_food_fitting(
    food: dict[str, Any],
    weighing: Weighing,
    line: ParsedLine,
    tried: list[dict[str, Any]],
    *,
    equal: tuple[int, int] | None = None,
    asked: str = "",
    cut: bool = False,
) -> tuple[dict[str, Any], Weighing]:
    """``food``, or a food of the same name (another source's record of it), or one
    meaning the line as well (``equal``: its rank, choosing.meaning of ``asked``),
    whose measure shares the line's preparation when ``food``'s does not ("1 cup
    chopped broccoli": SR28's "1 cup chopped" before another source's bare "cup"; "1
    cup sliced almonds": "Nuts, almonds" and its "1 cup sliced" before "Nuts, almonds,
    blanched" and its cup of whole kernels)."""
    if weighing.fits:
        return food, weighing
    for other in tried:
        same = other["name"].casefold() == food["name"].casefold()
        if equal is not None and not same:
            same = meaning(other["name"], other["data_type"], asked, cut=cut) == equal
        if other is not food and same:
            better = weigh(line, other["portions"] or [], food_words=line.food, name=other["name"])
            if better.grams is not None and better.fits:
                return other, better
    return food, weighing


def _matched(
    food: dict[str, Any], grams: float, portion: str | None, others: list[dict[str, Any]]
) -> dict[str, Any]:
    scale = grams / 100
    nutrients = {
        key: None if amount is None else round(amount * scale, 2)
        for key, amount in headline_amounts(food).items()
    }
    return {
        "status": "matched",
        "grams": grams,
        "portion": portion,
        "food": _ref(food) | {"data_type": food["data_type"]},
        "nutrients": nutrients,
        "alternatives": [_ref(c) for c in others],
    }


def _unmatched(reason: str, *, alternatives: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {
        "status": "unmatched",
        "reason": reason,
        "grams": None,
        "portion": None,
        "food": None,
        "nutrients": None,
        "alternatives": alternatives or [],
    }


def _ref(food: dict[str, Any]) -> dict[str, str]:
    return {"id": food["public_id"], "name": food["name"]}


def analysis_summed(results: list[dict[str, Any]]) -> Analysis:
    """The analysis of the lines' ``results``: their nutrients summed."""
    totals: dict[str, float | None] = dict.fromkeys(NUTRIENT_KEYS)
    incomplete = set()
    for result in results:
        for key, value in (result["nutrients"] or {}).items():
            if value is None:
                incomplete.add(key)
            else:
                totals[key] = round((totals[key] or 0) + value, 2)
    return Analysis(results, totals, [k for k in NUTRIENT_KEYS if k in incomplete])
