"""The failure classes of issue 38 (points 2 to 7), one table of real lines each. Lines
marked NYT are from the New York Times snapshot and TP from test_parser.json
(tests/catalogue/data/parser_external/, strangetom/ingredient-parser, MIT); the others
from issue 38's examples of what people type."""

from __future__ import annotations

import pytest

from catalogue.analysis.parser import parse_line


def _parts(line: str) -> tuple:
    parsed = parse_line(line)
    quantity = None if parsed.quantity is None else round(parsed.quantity, 3)
    unit = parsed.unit.name if parsed.unit else None
    package = str(parsed.package) if parsed.package else None
    return quantity, unit, parsed.food, package


def _check(line: str, expected: tuple) -> None:
    assert _parts(line) == expected


# Class 1: a comma inside the name went on as the food after it.
COMMAS = [
    (
        "750 g skinless, boneless chicken thighs",
        (750, "g", "skinless boneless chicken thighs", None),
    ),
    ("2 cups toasted, chopped walnuts", (2, "cup", "toasted walnuts", None)),  # NYT
    (
        "1/4 cup dry-roasted, unsalted peanuts, coarsely chopped",
        (0.25, "cup", "dry roasted unsalted peanuts", None),
    ),  # NYT
    ("3/4 cup fresh, soft bread crumbs", (0.75, "cup", "soft bread crumbs", None)),  # NYT
    ("2 small, ripe plum tomatoes, chopped", (2, "small", "ripe plum tomatoes", None)),  # NYT
    ("salt, to taste", (None, None, "salt", None)),  # a food before the comma ends it
    ("1 cup broccoli, chopped", (1, "cup", "broccoli", None)),
]

# Class 2: words before the amount.
BEFORE = [
    (
        "About 2/3 cup blanched almonds, finely ground",
        (0.667, "cup", "blanched almonds", None),
    ),  # NYT
    ("Juice of 1 lemon", (1, None, "juice lemon", None)),  # NYT
    ("Grated zest of 2 oranges", (2, None, "zest oranges", None)),  # NYT
    ("Scant 1/2 teaspoon ground cardamom", (0.5, "tsp", "ground cardamom", None)),  # NYT
    ("Greens from about 2 dozen scallions", (24, None, "greens scallions", None)),  # NYT
]

# Class 3: a part word is the food's own name, not its unit.
PARTS = [
    ("1 bay leaf", (1, None, "bay leaf", None)),
    ("4 bay leaves", (4, None, "bay leaves", None)),  # NYT
    ("20 mint leaves", (20, None, "mint leaves", None)),  # NYT
    ("4 whole cloves", (4, None, "whole cloves", None)),
    ("12 whole cloves", (12, None, "whole cloves", None)),  # NYT
    ("3 garlic cloves", (3, "clove", "garlic", None)),  # still a part of garlic
    ("1 teaspoon cloves", (1, "tsp", "cloves", None)),  # TP
]

# Class 4: package sizes.
PACKAGES = [
    ("2 28-ounce cans crushed tomatoes", (2, "can", "tomatoes", "28 oz")),  # NYT
    ("1x 400 g can chopped tomatoes", (1, "can", "tomatoes", "400 g")),  # TP
    ("1x 400 ml can coconut milk", (1, "can", "coconut milk", "400 ml")),  # TP
    ("0.5x 340 g tin sweetcorn", (0.5, "tin", "sweetcorn", "340 g")),  # TP
    ("1 1/4-ounce envelope gelatin", (1, "envelope", "gelatin", "0.25 oz")),
    (
        "2 1/4-ounce packages unflavored gelatin",
        (2, "package", "unflavored gelatin", "0.25 oz"),
    ),  # NYT
    ("1 (14.5 oz) can diced tomatoes", (1, "can", "tomatoes", "14.5 oz")),
    ("2 (15 oz) cans black beans", (2, "can", "black beans", "15 oz")),
    (
        "1 15-ounce package refrigerated pie crusts",
        (1, "package", "refrigerated pie crusts", "15 oz"),
    ),  # TP
    ("28 ounce can Italian plum tomatoes", (1, "can", "italian plum tomatoes", "28 oz")),  # NYT
    ("2 750-milliliter bottles dry red wine", (2, "bottle", "dry red wine", "750 ml")),  # NYT
    ("4 8-ounce pieces swordfish", (4, "piece", "swordfish", "8 oz")),  # NYT
    ("1 2-pound lobster", (1, None, "lobster", "2 lb")),  # NYT: one lobster of 2 lb
    ("1 1/2 cups flour", (1.5, "cup", "flour", None)),  # a mixed number stays one
    ("1 can tuna", (1, "can", "tuna", None)),  # no size: the food's own can measure
]

# Class 5: units not read.
UNITS_READ = [
    ("4 bunches Swiss chard", (4, "bunch", "swiss chard", None)),
    ("1/2 bulb fennel", (0.5, "bulb", "fennel", None)),
    ("1 fennel bulb, about 1/2 pound", (1, "bulb", "fennel", None)),  # NYT
    ("2 cinnamon sticks", (2, "stick", "cinnamon", None)),
    ("2 heaped tsp ground cumin", (2, "tsp", "ground cumin", None)),
    ("4 thin slices peeled fresh ginger", (4, "slice", "ginger", None)),  # NYT
    ("1 large garlic clove", (1, "clove", "garlic", None)),
    ("2 medium-size onions", (2, "medium", "onions", None)),  # NYT
    ("3 extra-large eggs", (3, "large", "eggs", None)),  # NYT
    ("Pinch of cayenne", (1, "pinch", "cayenne", None)),  # TP
    ("small bunch parsley, finely chopped", (1, "bunch", "parsley", None)),  # TP
    ("1 3-inch piece of ginger, peeled", (1, "piece", "ginger", None)),  # NYT
    ("18-inch piece daikon, peeled", (1, "piece", "daikon", None)),  # TP
]

# Class 6: composite amounts, summed.
COMPOSITES = [
    ("3 tablespoons, plus 2 teaspoons, butter", (3.667, "tbsp", "butter", None)),  # NYT
    ("2 tablespoons plus 2 teaspoons baking powder", (2.667, "tbsp", "baking powder", None)),  # NYT
    ("1 cup plus 2 tablespoons flour", (1.125, "cup", "flour", None)),
    ("1 cup sugar, plus 1/4 cup for dusting", (1, "cup", "sugar", None)),  # NYT: the rest is extra
]


@pytest.mark.parametrize(("line", "expected"), COMMAS)
def test_a_comma_after_qualifiers_continues_the_name(line, expected):
    _check(line, expected)


@pytest.mark.parametrize(("line", "expected"), BEFORE)
def test_words_before_the_amount_keep_it(line, expected):
    _check(line, expected)


@pytest.mark.parametrize(("line", "expected"), PARTS)
def test_a_part_word_naming_the_food_is_no_unit(line, expected):
    _check(line, expected)


@pytest.mark.parametrize(("line", "expected"), PACKAGES)
def test_a_package_size_is_carried(line, expected):
    _check(line, expected)


@pytest.mark.parametrize(("line", "expected"), UNITS_READ)
def test_these_units_are_read(line, expected):
    _check(line, expected)


@pytest.mark.parametrize(("line", "expected"), COMPOSITES)
def test_a_composite_amount_is_summed(line, expected):
    _check(line, expected)


@pytest.mark.parametrize("line", ["Salt to taste 2 3", "Herb bouquet (13 sprigs parsley) 4 x y"])
def test_a_number_the_grammar_cannot_place_says_so(line):
    parsed = parse_line(line)
    assert parsed.quantity is None and parsed.unreadable


def test_a_measure_description_is_read_as_before():
    # household measures keep the plain grammar (weighing parses every food's measures)
    parsed = parse_line("1 cup, chopped", measure=True)
    assert (parsed.quantity, parsed.unit.name, parsed.food, parsed.package) == (1, "cup", "", None)
    assert parse_line("5 leaves", measure=True).unit.name == "leaf"
