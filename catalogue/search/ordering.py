"""Sort orders of food lists and the keyset condition "rows after this one".

Every order ends with the id, so it is total and a page boundary is exact. Nutrient
columns sort nulls (not measured) last in both directions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import F, OrderBy, Q

from catalogue.nutrients import BY_SLUG
from catalogue.search.params import Sort


@dataclass(frozen=True, slots=True)
class Column:
    name: str  # a field or annotation of the list queryset
    descending: bool = False
    nullable: bool = False

    def order_by(self) -> OrderBy:
        expression = F(self.name)
        if self.descending:
            return expression.desc(nulls_last=True)
        return expression.asc(nulls_last=True)


def columns_for(sort: Sort) -> tuple[Column, ...]:
    if sort.key == "relevance":
        return (
            Column("relevance", descending=True),
            Column("quality"),
            Column("name_length"),
            Column("id"),
        )
    if sort.key == "name":
        return (Column("search_name", descending=sort.descending), Column("id"))
    column = BY_SLUG[sort.key].column
    return (Column(column, descending=sort.descending, nullable=True), Column("id"))


def key_of(row: dict[str, Any], columns: tuple[Column, ...]) -> tuple[Any, ...]:
    return tuple(row[column.name] for column in columns)


def after(columns: tuple[Column, ...], key: tuple[Any, ...]) -> Q:
    """Rows strictly after the row whose sort key is ``key``, in the order ``columns``."""
    condition = Q(pk__in=[])
    equal = Q()
    for column, value in zip(columns, key, strict=True):
        condition |= equal & _beyond(column, value)
        equal &= (
            Q(**{f"{column.name}__isnull": True}) if value is None else Q(**{column.name: value})
        )
    return condition


def _beyond(column: Column, value: Any) -> Q:
    if value is None:  # nulls come last: nothing lies beyond them in this column
        return Q(pk__in=[])
    lookup = "lt" if column.descending else "gt"
    beyond = Q(**{f"{column.name}__{lookup}": value})
    if column.nullable:
        beyond |= Q(**{f"{column.name}__isnull": True})
    return beyond
