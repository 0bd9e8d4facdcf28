"""Migration 0016: PostgreSQL's full-text index of the reference foods, which the
analysis's reference-only searches read instead of intersecting every match with every
reference row (catalogue/migrations/0016_reference_search_index.py). That PostgreSQL's
planner reads it on the full catalogue (a bitmap scan of ~200 rows instead of a bitmap
AND over ~16,700) is measured in bench/RESULTS.md: on a test database of a few rows the
planner rightly prefers any index, so a plan here would prove nothing."""

from __future__ import annotations

import pytest
from django.db import connection

from catalogue.models import DataType
from catalogue.search.selectors import food_top_ids
from tests.factories import FoodFactory, MarketFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def postgres(db: None) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the partial index is PostgreSQL's (SQLite's FTS5 has no partial form)")


REFERENCE = (DataType.SR_LEGACY, DataType.FOUNDATION, DataType.SURVEY, DataType.IFCT)


def test_the_index_holds_the_reference_foods_only(postgres):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'food_search_reference_gin'"
        )
        (definition,) = cursor.fetchone()
    assert "gin (search_vector)" in definition
    for data_type in REFERENCE:
        assert f"'{data_type}'" in definition
    assert "branded" not in definition


def test_reference_searches_find_reference_foods_and_never_branded_ones():
    us = MarketFactory(code="US")
    sr28 = FoodFactory(name="Tomatoes, red, ripe, raw", market=us, data_type=DataType.SR_LEGACY)
    FoodFactory(name="TOMATOES", market=us, data_type=DataType.BRANDED)
    assert food_top_ids(q="tomatoes", market="US", limit=10, data_types=REFERENCE) == [sr28.id]


def test_a_search_of_some_data_types_reads_its_last_word_whole():
    us = MarketFactory(code="US")
    sr28 = FoodFactory(name="Tomatoes, red, ripe, raw", market=us, data_type=DataType.SR_LEGACY)
    assert food_top_ids(q="tomat", market="US", limit=10) == [sr28.id]  # as typed: a prefix
    assert food_top_ids(q="tomat", market="US", limit=10, data_types=REFERENCE) == []
