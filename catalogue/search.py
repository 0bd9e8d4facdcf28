"""Full-text search backends: which foods match a query, and how well.

Matching is backend-specific (PostgreSQL: the GIN-indexed ``search_vector``; SQLite:
the FTS5 table; both made by migration 0002). Relevance is the same portable
expression on both, computed from ``search_name`` (padded, normalised words):

    4  the name is the query                       "butter"
    3  the name starts with the query's words      "butter, salted"
    2  the name holds the query as whole words     "cookies, butter"
    1  the name starts with the query as a prefix  "butterbur, raw"
    0  any other match (every word, the last one as a prefix, somewhere)

ties broken by the shorter name, then the id. So ``q=butter`` ranks butter above the
foods that merely contain it, on either backend.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import BooleanField, Case, IntegerField, Q, QuerySet, Value, When
from django.db.models.expressions import RawSQL
from django.db.models.functions import Length

from catalogue import text


def match(queryset: QuerySet, q: str) -> QuerySet:
    """``queryset`` narrowed to the foods whose name matches every word of ``q`` (the
    last word also as a prefix). A ``q`` without any letter or digit matches names
    containing it literally."""
    terms = text.words(q)
    if not terms:
        return queryset.filter(name__icontains=q.replace("\x00", ""))
    if connection.vendor == "postgresql":
        condition = RawSQL(
            "catalogue_food.search_vector @@ to_tsquery('english'::regconfig, %s)",
            (text.postgres_tsquery(terms),),
            output_field=BooleanField(),
        )
    else:
        condition = RawSQL(
            "catalogue_food.id IN (SELECT rowid FROM catalogue_food_fts "
            "WHERE catalogue_food_fts MATCH %s)",
            (text.fts5_query(terms),),
            output_field=BooleanField(),
        )
    return queryset.filter(condition)


def with_relevance(queryset: QuerySet, q: str) -> QuerySet:
    """Annotates ``relevance`` (4..0, higher is better) and ``name_length``."""
    phrase = " ".join(text.words(q))
    return queryset.annotate(
        relevance=Case(
            When(search_name=f" {phrase} ", then=Value(4)),
            When(search_name__startswith=f" {phrase} ", then=Value(3)),
            When(search_name__contains=f" {phrase} ", then=Value(2)),
            When(search_name__startswith=f" {phrase}", then=Value(1)),
            default=Value(0),
            output_field=IntegerField(),
        ),
        name_length=Length("search_name"),
    )


def never() -> Q:
    return Q(pk__in=[])
