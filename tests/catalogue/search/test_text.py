"""Normalisation shared by both search backends (pure)."""

from __future__ import annotations

from catalogue.models import Food
from catalogue.nutrients import HEADLINES
from catalogue.search import text


def test_words_fold_case_and_accents_and_split_on_metacharacters():
    assert text.words("Crème BRÛLÉE & 'butter':* | 50%\\x\x00y") == [
        "creme", "brulee", "butter", "50", "x", "y",
    ]  # fmt: skip


def test_search_name_is_padded_so_like_tests_whole_words():
    assert text.search_name("Butter, salted") == " butter salted "


def test_query_builders_quote_every_term_and_prefix_the_last():
    assert text.postgres_tsquery(["peanut", "butter"]) == "'peanut' & 'butter':*"
    assert text.fts5_query(["peanut", "butter"]) == '"peanut" AND "butter"*'


def test_category_slugs():
    assert text.slugify_name("Cookies & Biscuits") == "cookies-biscuits"
    assert text.slugify_name("!!!") == "uncategorised"


def test_every_headline_nutrient_has_its_food_column():
    columns = {field.name for field in Food._meta.get_fields()}
    assert {h.column for h in HEADLINES} <= columns


def test_long_category_names_get_short_distinct_slugs():
    first = text.slugify_name("Includes any products that can be described as frozen " + "a" * 300)
    second = text.slugify_name("Includes any products that can be described as frozen " + "b" * 300)
    assert first != second and len(first) <= 60 and len(second) <= 60
