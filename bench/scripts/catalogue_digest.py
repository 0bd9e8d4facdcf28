"""Digests of what a catalogue load leaves, to tell two loads apart (issue 41.3).

A change to the loader must leave the same catalogue: the same foods (every stored
column but the row id and the generated full-text vector, the category by its slug),
phrase rows and typo vocabulary (by food public id), categories, nutrients, markets and
per-source counts (not their file-and-code digest, which a loader change changes). Row
ids, revisions and renderings are left out too. This prints one digest per table
(PostgreSQL computes them, ordered by public id, so row ids may differ) and, with
``--against``, compares two databases and exits 1 on any difference.

    .venv/bin/python bench/scripts/catalogue_digest.py \\
        --database-url postgres://postgres@127.0.0.1:5432/fs_full \\
        --against postgres://postgres@127.0.0.1:5432/h1
"""

from __future__ import annotations

import argparse
import sys

import psycopg

# Every table's rows as text in one stable order, independent of row ids.
QUERIES = {
    "foods": """
        SELECT count(*), md5(string_agg(row_text, E'\\n' ORDER BY public_id)) FROM (
            SELECT f.public_id, concat_ws('|', f.public_id, f.source, f.source_id, f.name,
                f.search_name, f.local_names::text, f.search_aliases, f.search_stems,
                f.search_heads, f.rank_quality, f.variant_key, f.variant_count, f.data_type,
                c.slug, f.brand_owner, f.brand_key, f.market_id, f.serving_description,
                f.serving_grams, f.portions::text, f.nutrients::text, f.nutrient_sd::text,
                f.content_hash, f.fdc_id, f.gtin, f.brand_name, f.ingredients,
                f.serving_size, f.serving_size_unit, f.household_serving, f.published,
                f.energy_kcal, f.protein_g, f.fat_g, f.saturated_fat_g, f.carbohydrate_g,
                f.sugars_g, f.fiber_g, f.cholesterol_mg, f.sodium_mg, f.potassium_mg,
                f.calcium_mg, f.iron_mg, f.search_vector::text) AS row_text
            FROM catalogue_food f LEFT JOIN catalogue_category c ON c.id = f.category_id
        ) t""",
    "phrases": """
        SELECT count(*), md5(string_agg(row_text, E'\\n' ORDER BY row_text)) FROM (
            SELECT concat_ws('|', p.phrase, p.tier, p.quality, p.name_length, f.public_id,
                p.market_id) AS row_text
            FROM catalogue_food_phrase p JOIN catalogue_food f ON f.id = p.food_id
        ) t""",
    "words": """
        SELECT count(*), md5(string_agg(concat_ws('|', market_id, word, foods, reference),
            E'\\n' ORDER BY market_id, word)) FROM catalogue_word""",
    "categories": """
        SELECT count(*), md5(string_agg(concat_ws('|', slug, name, usda_code), E'\\n'
            ORDER BY slug)) FROM catalogue_category""",
    "nutrients": """
        SELECT count(*), md5(string_agg(concat_ws('|', id, number, fdc_id, name, unit, tag,
            rank), E'\\n' ORDER BY id)) FROM catalogue_nutrient""",
    "markets": """
        SELECT count(*), md5(string_agg(concat_ws('|', code, name), E'\\n' ORDER BY code))
        FROM catalogue_market""",
    "source loads": """
        SELECT count(*), md5(string_agg(concat_ws('|', source, market, foods, skipped),
            E'\\n' ORDER BY source, market)) FROM catalogue_sourceload""",
}


def digests(url: str) -> dict[str, tuple[int, str]]:
    """Each table's (rows, digest) in the database at ``url``."""
    with psycopg.connect(url) as connection:
        return {
            name: tuple(connection.execute(sql).fetchone())  # type: ignore[misc]
            for name, sql in QUERIES.items()
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--against", help="a second database to compare with")
    args = parser.parse_args()
    mine = digests(args.database_url)
    theirs = digests(args.against) if args.against else None
    differ = 0
    for name, (rows, digest) in mine.items():
        line = f"{name:13} {rows:>9,} {digest}"
        if theirs is not None:
            same = theirs[name] == (rows, digest)
            differ += not same
            line += "  same" if same else f"  DIFFERS: {theirs[name][0]:,} {theirs[name][1]}"
        print(line)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
