"""The ingredient-line parser (catalogue/analysis/parser.py): one table row per form."""

from __future__ import annotations

import math
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catalogue.analysis.parser import parse_line, tokens

CASES = [
    # (line, quantity, unit, food, preparation)
    ("2 tbsp butter", 2, "tbsp", "butter", ()),
    ("2 butter", 2, None, "butter", ()),
    ("0.5 cup milk", 0.5, "cup", "milk", ()),
    ("1,5 kg potatoes", 1.5, "kg", "potatoes", ()),
    ("1/2 cup sugar", 0.5, "cup", "sugar", ()),
    ("1 1/2 cups flour", 1.5, "cup", "flour", ()),
    ("1-1/2 cup milk", 1.5, "cup", "milk", ()),
    ("½ tsp salt", 0.5, "tsp", "salt", ()),
    ("1½ cups rice", 1.5, "cup", "rice", ()),
    ("¼ cup honey", 0.25, "cup", "honey", ()),
    ("¾ cup oats", 0.75, "cup", "oats", ()),
    ("⅓ cup oil", 1 / 3, "cup", "oil", ()),
    ("a banana", 1, None, "banana", ()),
    ("an apple", 1, None, "apple", ()),
    ("one egg", 1, None, "egg", ()),
    ("twelve almonds", 12, None, "almonds", ()),
    ("half a cup of milk", 0.5, "cup", "milk", ()),
    ("a half cup milk", 0.5, "cup", "milk", ()),
    ("a dozen eggs", 12, None, "eggs", ()),
    ("2 dozen eggs", 24, None, "eggs", ()),
    ("one and a half cups rice", 1.5, "cup", "rice", ()),
    ("200g chicken", 200, "g", "chicken", ()),
    ("200 grams chicken", 200, "g", "chicken", ()),
    ("1 kg flour", 1, "kg", "flour", ()),
    ("2kg flour", 2, "kg", "flour", ()),
    ("4 oz cheese", 4, "oz", "cheese", ()),
    ("4 ounces cheese", 4, "oz", "cheese", ()),
    ("1 lb beef", 1, "lb", "beef", ()),
    ("2 lbs beef", 2, "lb", "beef", ()),
    ("1 pound beef", 1, "lb", "beef", ()),
    ("250 ml milk", 250, "ml", "milk", ()),
    ("250ml milk", 250, "ml", "milk", ()),
    ("1 l water", 1, "l", "water", ()),
    ("1 litre water", 1, "l", "water", ()),
    ("2 cups milk", 2, "cup", "milk", ()),
    ("2 c milk", 2, "cup", "milk", ()),
    ("1 tablespoon oil", 1, "tbsp", "oil", ()),
    ("1 tbs oil", 1, "tbsp", "oil", ()),
    ("1 T oil", 1, "tbsp", "oil", ()),
    ("1 t salt", 1, "tsp", "salt", ()),
    ("1 teaspoon salt", 1, "tsp", "salt", ()),
    ("3 fl oz juice", 3, "fl oz", "juice", ()),
    ("3 fluid ounces juice", 3, "fl oz", "juice", ()),
    ("1 pint milk", 1, "pint", "milk", ()),
    ("1 quart milk", 1, "quart", "milk", ()),
    ("1 qt milk", 1, "quart", "milk", ()),
    ("a pinch of salt", 1, "pinch", "salt", ()),
    ("2 large eggs", 2, "large", "eggs", ()),
    ("1 medium banana", 1, "medium", "banana", ()),
    ("1 small onion", 1, "small", "onion", ()),
    ("2 slices bread", 2, "slice", "bread", ()),
    ("3 cloves garlic", 3, "clove", "garlic", ()),
    ("3 garlic cloves", 3, "clove", "garlic", ()),
    ("2 celery stalks, chopped", 2, "stalk", "celery", ("chopped",)),
    ("2 chocolate chip cookies", 2, None, "chocolate chip cookies", ()),
    ("garlic cloves", None, None, "garlic cloves", ()),
    ("1 clove", 1, None, "clove", ()),
    ("1 can tuna", 1, "can", "tuna", ()),
    ("1 large can tomatoes", 1, "can", "tomatoes", ()),
    ("1 stick butter", 1, "stick", "butter", ()),
    ("2 pieces chicken", 2, "piece", "chicken", ()),
    ("1 pat butter", 1, "pat", "butter", ()),
    ("1 container yogurt", 1, "container", "yogurt", ()),
    ("2 cookies", 2, None, "cookies", ()),
    ("10 almonds", 10, None, "almonds", ()),
    ("1 (15 oz) can black beans", 1, "can", "black beans", ()),
    ("1 cup chopped broccoli", 1, "cup", "broccoli", ("chopped",)),
    ("1 cup broccoli, chopped", 1, "cup", "broccoli", ("chopped",)),
    ("1 cup sliced strawberries", 1, "cup", "strawberries", ("sliced",)),
    ("1 cup diced onion", 1, "cup", "onion", ("diced",)),
    ("1 cup cooked rice", 1, "cup", "cooked rice", ()),
    ("1 cup rice, cooked", 1, "cup", "rice cooked", ()),
    ("2 boiled eggs", 2, None, "boiled eggs", ()),
    ("100 g raw spinach", 100, "g", "raw spinach", ()),
    ("1 cup of milk", 1, "cup", "milk", ()),
    ("salt, to taste", None, None, "salt", ()),
    ("milk 250 ml", 250, "ml", "milk", ()),
    ("chicken breast 200g", 200, "g", "chicken breast", ()),
    ("1 cup fresh blueberries", 1, "cup", "blueberries", ()),
    ("qwerty", None, None, "qwerty", ()),
    ("", None, None, "", ()),
    ("2 cups", 2, "cup", "", ()),
]


@pytest.mark.parametrize(("line", "quantity", "unit", "food", "preparation"), CASES)
def test_each_written_form_parses(line, quantity, unit, food, preparation):
    parsed = parse_line(line)
    assert parsed.quantity == (None if quantity is None else pytest.approx(quantity))
    assert (parsed.unit.name if parsed.unit else None) == unit
    assert parsed.food == food
    assert parsed.preparation == preparation


@pytest.mark.parametrize(
    ("line", "low", "high"),
    [("2-3 cloves garlic", 2, 3), ("2 to 3 bananas", 2, 3), ("1 or 2 eggs", 1, 2),
     ("2\u20133 cups milk", 2, 3)],
)  # fmt: skip
def test_a_range_is_its_mean_and_says_so(line, low, high):
    parsed = parse_line(line)
    assert (parsed.low, parsed.high, parsed.quantity) == (low, high, (low + high) / 2)


def test_a_measure_description_keeps_its_count_word_as_the_unit():
    # SR28 measures ("1 medium (3" dia)") are parsed with the same grammar.
    parsed = parse_line('1 medium (3" dia)', measure=True)
    assert (parsed.quantity, parsed.unit.name, parsed.food) == (1, "medium", "")
    assert parse_line("1 medium").food == "medium"  # a line: the word is what was eaten


def test_the_amount_is_kept_as_written_not_clamped():
    # The weight is bounded, after conversion (weighing.MAX_GRAMS), not the count: a
    # clamp of the count made "99999999999 g rice" 100 kg of rice (issue 36.6).
    assert parse_line("99999 gallons honey").quantity == 99999
    assert parse_line("99999999999 g rice").quantity == 99999999999
    assert parse_line("0 g sugar").quantity == 0
    assert parse_line("1/0 cup milk").quantity is None


@given(st.text(max_size=200))
def test_any_text_parses_without_raising(line):
    parsed = parse_line(line)
    assert parsed.quantity is None or (parsed.quantity >= 0 and math.isfinite(parsed.quantity))


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


@pytest.mark.parametrize(
    ("line", "food", "preparation"),
    [
        ("1 cup café au lait", "café au lait", ()),
        ("2 tbsp crème fraîche", "crème fraîche", ()),
        ("1 cup crème brûlée", "crème brûlée", ()),
        ("1 jalapeño, sliced", "jalapeño", ("sliced",)),
        ("100 g purée de pommes de terre", "purée de pommes de terre", ()),
        ("1 cup sautéed mushrooms", "sautéed mushrooms", ()),
        ("2 crêpes", "crêpes", ()),
        ("200 g Gruyère, grated", "gruyère", ("grated",)),
    ],
)
def test_decomposed_accents_parse_as_composed_ones(line, food, preparation):
    # NFD ("e" + U+0301) as macOS file names and some keyboards send it: before NFC the
    # combining mark cut the word in two ("cre", "me").
    assert _nfd(line) != line
    assert parse_line(_nfd(line)) == parse_line(line)
    parsed = parse_line(_nfd(line))
    assert (parsed.food, parsed.preparation) == (food, preparation)


def test_a_combining_mark_stays_in_its_word():
    # Yoruba's tone marks over a dotted vowel have no precomposed letter, so NFC leaves
    # U+0300 and U+0301 after "ẹ" and "ọ" (efo riro, a vegetable stew).
    efo = unicodedata.normalize("NFC", "e\u0323\u0300fo\u0323\u0301")
    assert efo == "\u1eb9\u0300f\u1ecd\u0301"
    assert tokens(f"2 cups {efo} riro") == ["2", "cups", efo, "riro"]
    # Devanagari's vowel signs and virama are marks too: dal, rajma, khichdi.
    assert parse_line("1 कटोरी दाल").food == "कटोरी दाल"
    assert parse_line("200 g राजमा").food == "राजमा"
    assert parse_line("1 cup खिचड़ी").food == "खिचड़ी"
    # a mark after a number or alone is no word
    assert tokens("2\u0301 cups") == ["2", "cups"]
