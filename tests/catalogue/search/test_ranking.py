"""Issue 12: ranking that serves people, look-alikes shown once, typo tolerance and
per-serving values, on real SR28 and FDC rows (tests/catalogue/data), both backends."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from django.db import connection
from django.db.models import Q

from catalogue import nutrients
from catalogue.importers.load import catalogue_load
from catalogue.models import Food
from catalogue.search import ranking, spelling, text, variants
from catalogue.search.paging import Position, cursor_dumps
from catalogue.search.params import parse_food_query
from tests.catalogue.conftest import DATA
from tests.factories import FoodFactory, MarketFactory
from tests.support.shared_rows import shared_rows

pytestmark = pytest.mark.django_db


def load_judged() -> None:
    catalogue_load(source="fdc", path=DATA / "judged" / "fdc" / "fooddata.csv")
    catalogue_load(source="sr28", path=DATA / "judged" / "sr28")


def load_lookalikes() -> None:
    catalogue_load(source="sr28", path=DATA / "judged" / "sr28")
    catalogue_load(source="fdc", path=DATA / "lookalikes" / "fooddata.csv")


# Loaded once per class (tests/support/shared_rows.py): only the classes below use them.
@pytest.fixture(scope="class")
def judged_once(django_db_setup: None, django_db_blocker) -> Iterator[None]:
    yield from shared_rows(django_db_blocker, load_judged)


@pytest.fixture(scope="class")
def lookalikes_once(django_db_setup: None, django_db_blocker) -> Iterator[None]:
    yield from shared_rows(django_db_blocker, load_lookalikes)


def names(client, q: str, **params) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    body = client.get("/v1/foods", {"q": q, **params}).json()
    return [(row["name"], row["data_type"]) for row in body["data"]]


# --- Ranking -----------------------------------------------------------------------


class TestRankingOnTheJudgedSample:
    """Ranking on the judged sample, loaded once for the class."""

    def test_reference_foods_come_before_branded_ones_of_the_same_class(self, judged_once, taster):
        found = names(taster, "banana")
        assert found[0][1] in ranking.REFERENCE and found[0][0] in ("Banana, raw", "Bananas, raw")
        assert ("BANANA", "branded") in found  # still found, after the reference foods
        first_branded = next(i for i, (_, t) in enumerate(found) if t == "branded")
        assert all(t in ranking.REFERENCE for _, t in found[:first_branded])

    def test_a_name_about_the_query_beats_one_that_merely_starts_with_it(self, judged_once, taster):
        found = [name for name, _ in names(taster, "rice")]
        about = [i for i, n in enumerate(found) if n.lower().startswith("rice,")]
        merely = [
            i for i, n in enumerate(found) if n.lower().startswith(("rice bran", "rice cake"))
        ]
        assert about and (not merely or max(about[:3]) < min(merely))

    @pytest.mark.parametrize(
        ("q", "expected"),
        [("whole milk", r"milk, whole"), ("brown rice", r"rice, brown"),
         ("olive oil", r"oil, olive"), ("cheddar cheese", r"cheese, cheddar")],
    )  # fmt: skip
    def test_two_words_find_the_usda_inverted_name(self, judged_once, taster, q, expected):
        top = [name.lower() for name, _ in names(taster, q)[:3]]
        assert any(name.startswith(expected) for name in top), top

    def test_a_class_head_names_the_food_after_it(self, judged_once, taster):
        assert names(taster, "almonds")[0][0].lower().startswith(("nuts, almonds", "almonds"))


def test_quality_orders_data_type_then_capitals_then_dish_then_basic_form_then_panel():
    full = {"energy_kcal": 1, "protein_g": 1, "fat_g": 1, "carbohydrate_g": 1, "sugars_g": 1,
            "sodium_mg": 1}  # fmt: skip
    assert ranking.quality(data_type="sr_legacy", name="Bananas, raw", headlines=full) == 0
    assert ranking.quality(data_type="survey", name="Rice, cooked, NFS", headlines={}) == 1
    assert ranking.quality(data_type="survey", name="Egg, deviled", headlines=full) == 2
    # A dish word: the food made into something else, its basic-form marker not counted.
    assert ranking.quality(data_type="survey", name="Rice, fried, NFS", headlines=full) == 6
    assert ranking.quality(data_type="survey", name="Tea, bubble", headlines=full) == 6
    assert ranking.quality(data_type="sub_sample", name="BANANAS, RAW", headlines=full) == 24
    assert ranking.quality(data_type="branded", name="Banana chips", headlines=full) == 34
    assert ranking.quality(data_type="branded", name="BANANA", headlines={}) == 43


def test_a_basic_form_marker_counts_only_before_any_dish_word():
    assert ranking.typicality("Rice, white, cooked, NFS") == (False, True)
    assert ranking.typicality("Rice, fried, NFS") == (True, False)
    assert ranking.typicality("Bacon, meatless") == (True, False)
    assert ranking.typicality("Zucchini, pickled") == (True, False)
    assert ranking.typicality("Steak sauce") == (True, False)
    assert ranking.typicality("Egg, whole, raw") == (False, True)


def test_the_ifct_reads_ripe_and_raw_in_indian_english():
    # The IFCT's Fruits group: "ripe" marks the fruit as eaten, its basic form.
    assert ranking.typicality("Mango, ripe, kesar", data_type="ifct2017", category="Fruits") == (
        False,
        True,
    )
    assert ranking.typicality("Papaya, ripe", data_type="ifct2017", category="Fruits")[1]
    # Its vegetable groups: "raw" names the unripe fruit cooked as a vegetable.
    vegetables = {"data_type": "ifct2017", "category": "Other Vegetables"}
    assert ranking.typicality("Mango, green, raw", **vegetables) == (False, False)
    assert ranking.typicality("Papaya, raw", **vegetables) == (False, False)
    # Elsewhere in the IFCT, "raw" is uncooked, as in USDA names.
    assert ranking.typicality(
        "Rice, raw, milled", data_type="ifct2017", category="Cereals and Millets"
    )[1]
    assert ranking.typicality("Egg, poultry, whole, raw", data_type="ifct2017")[1]
    # USDA names are read as before: ripe is no basic form, a vegetable's raw is.
    assert ranking.typicality("Tomatoes, red, ripe, cooked", data_type="sr_legacy") == (
        False,
        False,
    )
    assert ranking.typicality("Olives, ripe, canned (small-extra large)") == (False, False)
    assert ranking.typicality("Tomatoes, green, raw", category="Other Vegetables")[1]
    # A dish word before it still voids the marker.
    assert ranking.typicality("Mango, pickled, ripe", data_type="ifct2017") == (True, False)


def test_saving_a_food_ranks_it_by_its_category(db):
    from tests.factories import CategoryFactory

    fruits = CategoryFactory(name="Fruits")
    vegetables = CategoryFactory(name="Other Vegetables")
    food = FoodFactory(name="Papaya, raw", data_type="ifct2017", category=fruits)
    # 16 x 2 (the IFCT's quality group) + 1 (no nutrients: a thin panel), basic.
    assert food.rank_quality == 33
    food.category = vegetables
    food.save()
    food.refresh_from_db()
    assert food.rank_quality == 35  # unripe: not the basic form


def test_migration_0015_ranks_the_loaded_ifct_foods_again(db):
    # A database loaded before the rule: the IFCT's rows ranked by their names alone.
    catalogue_load(source="ifct")
    ripe = Food.objects.get(name="Mango, ripe, kesar")
    unripe = Food.objects.get(name="Mango, green, raw")
    rice = Food.objects.get(name="Rice, raw, milled")
    stale = {ripe.pk: ripe.rank_quality + 2, unripe.pk: unripe.rank_quality - 2}
    for pk, value in stale.items():
        Food.objects.filter(pk=pk).update(rank_quality=value)
    untouched = rice.rank_quality
    migration = importlib.import_module("catalogue.migrations.0015_ifct_ripe_and_raw")
    migration._fill(None, SimpleNamespace(connection=connection))
    ripe.refresh_from_db()
    unripe.refresh_from_db()
    rice.refresh_from_db()
    assert (ripe.rank_quality, unripe.rank_quality) == (32, 34)
    assert rice.rank_quality == untouched == 32  # raw rice stays basic
    if connection.vendor == "postgresql":  # the phrase index follows (0013's trigger)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT DISTINCT food_id, quality FROM catalogue_food_phrase "
                "WHERE food_id IN (%s, %s)",
                [ripe.pk, unripe.pk],
            )
            assert dict(cursor.fetchall()) == {ripe.pk: 32, unripe.pk: 34}


def test_search_forms_hold_heads_and_stems():
    forms = text.search_forms("Milk, whole, 3.25% milkfat")
    assert forms["search_name"] == " milk whole 3 25 milkfat "
    assert forms["search_heads"] == "|milk|milk whole|"
    assert text.search_forms("Bananas, raw")["search_stems"] == " banana raw "
    assert text.search_forms("Nuts, almonds")["search_heads"] == "|nut|almond nut|almond|"
    assert text.search_forms("Peanut butter cookies, soft")["search_heads"] == "|"


# --- Look-alikes -------------------------------------------------------------------


class TestLookAlikes:
    """Look-alikes on real SR28 and FDC rows, loaded once for the class."""

    def test_sr28_and_the_fdc_copy_of_a_food_appear_once(self, lookalikes_once, taster):
        assert Food.objects.filter(name="Bananas, raw").count() == 2
        body = taster.get("/v1/foods", {"q": "bananas raw"}).json()
        shown = [row for row in body["data"] if row["name"] == "Bananas, raw"]
        assert len(shown) == 1 and shown[0]["id"] == "sr28-09040"  # the full SR28 record
        assert shown[0]["variants"]["count"] == 2

    def test_look_alikes_collapse_into_one_result_that_lists_them(self, lookalikes_once, taster):
        body = taster.get("/v1/foods", {"q": "overnight oats"}).json()
        assert [row["name"] for row in body["data"]] == ["BANANA & COFFEE OVERNIGHT OATS"]
        assert body["meta"]["total"] == 1
        variant = body["data"][0]["variants"]
        assert variant["count"] == 3
        listed = taster.get(variant["list"]).json()
        servings = sorted(row["serving"]["description"] for row in listed["data"])
        assert servings == ["1 JAR", "1 PACK", "1 POUCH"]
        assert listed["meta"]["total"] == 3

    def test_same_name_with_different_nutrients_stays_apart(self, lookalikes_once, taster):
        shown = [row for row in taster.get("/v1/foods", {"q": "banana"}).json()["data"]
                 if row["name"] == "BANANA"]  # fmt: skip
        assert len(shown) == 2  # a nut butter and a snack: their categories tell them apart
        assert {row["category"]["name"] for row in shown} == {
            "Nut & Seed Butters",
            "Wholesome Snacks",
        }
        assert all(row["variants"] is None for row in shown)

    def test_copies_of_a_product_without_energy_or_rounded_otherwise_collapse(
        self, lookalikes_once, taster
    ):
        # Six real "Cheerios Cereal" rows: two servings, each once without its energy and
        # once with it (357 and 361 kcal), and two formulations that differ in fat.
        body = taster.get("/v1/foods", {"q": "cheerios"}).json()
        shown = [(row["serving"]["description"], row["variants"]) for row in body["data"]]
        assert len(shown) == 4 and body["meta"]["total"] == 4
        by_serving = {description: variant for description, variant in shown}
        assert by_serving["1 Bowl (28g)"]["count"] == 2
        assert by_serving["1 container (36g)"]["count"] == 2
        assert by_serving["1 1/2 cup"] is None and by_serving["1 1/2 cup (age 4+ years)"] is None
        # The copy that gives its energy is the one shown; the list holds both.
        bowl = next(row for row in body["data"] if row["serving"]["description"] == "1 Bowl (28g)")
        assert bowl["nutrients_per_100g"]["energy_kcal"] == 357.0
        listed = taster.get(bowl["variants"]["list"]).json()["data"]
        assert sorted(str(row["nutrients_per_100g"]["energy_kcal"]) for row in listed) == [
            "357.0",
            "None",
        ]

    def test_migration_0010_rekeys_a_loaded_catalogue_and_regroups_it(
        self, lookalikes_once, taster
    ):
        # A database loaded before 0010 holds keys that counted energy: stand them in with
        # stale keys, each food on its own, and run the migration's step on it.
        Food.objects.update(variant_key=None, variant_count=1)
        Food.objects.filter(name="Cheerios Cereal").update(variant_key="stale")
        migration = importlib.import_module("catalogue.migrations.0010_variant_key_macros")
        migration.rekey(None, SimpleNamespace(connection=connection))
        assert not Food.objects.filter(Q(variant_key="stale") | Q(variant_key=None)).exists()
        for food in Food.objects.all():
            assert food.variant_key == ranking.variant_key(
                search_name=food.search_name, data_type=food.data_type,
                headlines={"protein_g": food.protein_g, "fat_g": food.fat_g,
                           "carbohydrate_g": food.carbohydrate_g},
            )  # fmt: skip
        cheerios = Food.objects.filter(name="Cheerios Cereal")
        assert sorted(cheerios.values_list("variant_count", flat=True)) == [0, 0, 1, 1, 2, 2]
        body = taster.get("/v1/foods", {"q": "cheerios"}).json()
        assert body["meta"]["total"] == 4

    def test_a_food_written_after_a_load_is_grouped_by_the_next_refresh(
        self, lookalikes_once, taster
    ):
        original = Food.objects.get(public_id="sr28-09040")
        FoodFactory(name="Bananas, raw", market=original.market, nutrients=original.nutrients)
        assert variants.refresh() == 2  # the new copy hidden, the SR28 record counts 3
        original.refresh_from_db()
        assert original.variant_count == 3
        body = taster.get("/v1/foods", {"q": "bananas raw"}).json()  # the phrase index follows
        shown = [row for row in body["data"] if row["name"] == "Bananas, raw"]
        assert [row["id"] for row in shown] == ["sr28-09040"]
        assert shown[0]["variants"]["count"] == 3

    def test_a_cursor_from_before_the_ranking_change_is_a_400(self, lookalikes_once, taster):
        query = parse_food_query({"q": ["banana"]})
        old = cursor_dumps(Position(20, (4, 10, 1)), fingerprint=query.fingerprint())
        response = taster.get("/v1/foods", {"q": "banana", "cursor": old})
        assert response.status_code == 400
        assert response.json()["errors"][0]["parameter"] == "cursor"

    @pytest.mark.parametrize("value", ["", "nope", "sr28-", "x" * 50, "sr28-01001'"])
    def test_a_malformed_variant_of_is_a_400(self, lookalikes_once, taster, value):
        response = taster.get("/v1/foods", {"q": "banana", "variant_of": value})
        assert response.status_code == 400
        assert response.json()["errors"][0]["parameter"] == "variant_of"

    def test_variant_of_an_unknown_food_is_a_400(self, lookalikes_once, taster):
        response = taster.get("/v1/foods", {"q": "banana", "variant_of": "fdc-0000000000000000"})
        assert response.status_code == 400
        assert response.json()["errors"][0]["parameter"] == "variant_of"


def test_the_look_alike_key_ignores_energy_but_not_the_macronutrients():
    def key(**amounts: float | None) -> str:
        return ranking.variant_key(search_name="cheerios cereal", data_type="branded",
                                   headlines=amounts)  # fmt: skip

    same = key(energy_kcal=357.0, protein_g=10.71, fat_g=7.14, carbohydrate_g=71.43)
    assert key(energy_kcal=None, protein_g=10.71, fat_g=7.14, carbohydrate_g=71.43) == same
    assert key(energy_kcal=361.0, protein_g=11.11, fat_g=6.94, carbohydrate_g=71.4) == same
    assert key(energy_kcal=357.0, protein_g=10.71, fat_g=6.41, carbohydrate_g=71.43) != same
    assert key(energy_kcal=357.0, protein_g=None, fat_g=7.14, carbohydrate_g=71.43) != same


# --- Typo tolerance ------------------------------------------------------------------


class TestTyposOnTheJudgedSample:
    """Typo tolerance on the judged sample, loaded once for the class."""

    @pytest.mark.parametrize(
        ("q", "corrected", "meant"),
        [("bananna", "banana", "banana"),  # a doubled letter
         ("brocoli", "broccoli", "broccoli"),  # a missing letter
         ("mlik", "milk", "milk"),  # two letters swapped
         ("avacado", "avocado", "avocado"),  # a wrong letter
         ("chiken breast", "chicken breast", "chicken"),  # one word of two
         ("peanut buter", "peanut butter", "peanut butter")],  # the last word
    )  # fmt: skip
    def test_a_misspelling_falls_back_to_the_closest_words(
        self, judged_once, taster, q, corrected, meant
    ):
        body = taster.get("/v1/foods", {"q": q}).json()
        assert body["meta"]["q"] == q and body["meta"]["corrected_q"] == corrected
        assert any(meant in row["name"].lower() for row in body["data"][:5])

    def test_a_query_that_matches_is_not_corrected(self, judged_once, taster):
        body = taster.get("/v1/foods", {"q": "banana"}).json()
        assert body["meta"]["corrected_q"] is None

    def test_nothing_close_stays_an_empty_page(self, judged_once, taster):
        body = taster.get("/v1/foods", {"q": "xqzjvw"}).json()
        assert body["data"] == [] and body["meta"]["corrected_q"] is None

    def test_pages_of_a_corrected_search_keep_the_correction(self, judged_once, taster):
        first = taster.get("/v1/foods", {"q": "bananna", "page_size": 2}).json()
        second = taster.get(first["links"]["next"]).json()
        assert second["meta"]["corrected_q"] == "banana"
        assert second["meta"]["offset"] == 2 and second["data"]
        assert {r["id"] for r in first["data"]}.isdisjoint(r["id"] for r in second["data"])


def test_a_rare_word_yields_to_a_far_more_common_neighbour(db):
    market = MarketFactory(code="US")
    FoodFactory(name="MOZARELLA STICKS", data_type="branded", market=market)
    for n in range(spelling.MORE_COMMON + 1):
        FoodFactory(name=f"Cheese, mozzarella, part {n}", market=market)
    assert spelling.correct("mozarella") == "mozzarella"
    assert spelling.correct("mozzarella") is None


@pytest.fixture
def common_pairs(db: None) -> None:
    """Enough foods that "ice", "cream", "peanut" and "butter" are common words."""
    market = MarketFactory(code="US")
    for n in range(spelling.COMMON):
        FoodFactory(name=f"Ice cream, vanilla, lot {n}", market=market)
        FoodFactory(name=f"Peanut butter, smooth, lot {n}", market=market)
    FoodFactory(name="PEANUTBUTTER MOUNTAIN MIX", data_type="branded", market=market)
    FoodFactory(name="Corn, sweet, raw", market=market)
    FoodFactory(name="Bread, white", market=market)


def test_two_common_words_run_together_are_split(common_pairs, taster):
    assert spelling.correct("icecream") == "ice cream"  # unknown
    assert spelling.correct("peanutbutter") == "peanut butter"  # one branded name holds it
    assert spelling.correct("vanilla icecream") == "vanilla ice cream"
    body = taster.get("/v1/foods", {"q": "icecream"}).json()
    assert body["meta"]["corrected_q"] == "ice cream"
    assert body["data"] and all(row["name"].startswith("Ice cream") for row in body["data"])


def test_a_word_is_not_split_into_rare_words(common_pairs):
    assert spelling.split("cornbread", minimum=spelling.COMMON) is None  # 1 food each
    assert spelling.correct("cornbread") is None
    assert spelling.split("icecream", minimum=spelling.COMMON + 1) is None
    assert spelling.split("ice", minimum=1) is None  # no halves of 3+ letters


def test_max_edits_grow_with_the_word():
    assert spelling.max_edits("tofu") == 1 and spelling.max_edits("banana") == 2


# --- Per serving ---------------------------------------------------------------------


def test_per_serving_arithmetic():
    assert nutrients.per_serving(89.0, 118.0) == 105.02
    assert nutrients.per_serving(0.85, 5.0) == 0.0425
    assert nutrients.per_serving(1.0 / 3.0, 100.0) == 0.333333
    assert nutrients.per_serving(None, 100.0) is None
    assert nutrients.per_serving(10.0, None) is None
    assert nutrients.per_serving(10.0, 0.0) is None


class TestPerServingOnLookAlikes:
    """Per-serving values on the same rows, loaded once for the class."""

    def test_summaries_carry_per_serving_values_where_a_serving_is_known(
        self, lookalikes_once, taster
    ):
        rows = taster.get("/v1/foods", {"q": "bananas raw"}).json()["data"]
        banana = next(row for row in rows if row["id"] == "sr28-09040")
        grams = banana["serving"]["gram_weight"]
        per_100g, per_serving = banana["nutrients_per_100g"], banana["nutrients_per_serving"]
        assert per_serving["energy_kcal"] == nutrients.per_serving(per_100g["energy_kcal"], grams)
        assert per_serving["energy_kcal"] == pytest.approx(per_100g["energy_kcal"] * grams / 100)
        record = taster.get("/v1/foods/sr28-09040").json()["data"]
        energy = next(n for n in record["nutrients"] if n["id"] == 208)
        assert energy["amount_per_serving"] == per_serving["energy_kcal"]


def test_a_food_without_a_serving_weight_has_no_per_serving_values(db, taster):
    FoodFactory(name="Okra, raw", market=MarketFactory(code="US"), nutrients={"208": 33.0})
    row = taster.get("/v1/foods", {"q": "okra"}).json()["data"][0]
    assert row["serving"] is None and row["nutrients_per_serving"] is None
