"""Grams from household measures (catalogue/analysis/weighing.py), on SR28's own
measures of the foods in tests/catalogue/data/sr28 (WEIGHT.txt)."""

from __future__ import annotations

import pytest

from catalogue.analysis.parser import parse_line
from catalogue.analysis.weighing import MAX_GRAMS, overweight, weigh


def _portions(*rows: tuple[str, float]) -> list[dict]:
    return [{"description": d, "gram_weight": g} for d, g in rows]


BUTTER = _portions(('1 pat (1" sq, 1/3" high)', 5.0), ("1 tbsp", 14.2), ("1 cup", 227),
                   ("1 stick", 113))  # fmt: skip
CHEDDAR = _portions(("1 cup, diced", 132), ("1 cup, melted", 244), ("1 cup, shredded", 113),
                    ("1 oz", 28.35), ("1 slice (1 oz)", 28))  # fmt: skip
EGG = _portions(("1 large", 50), ("1 extra large", 56), ("1 cup (4.86 large eggs)", 243),
                ("1 medium", 44), ("1 small", 38))  # fmt: skip
APPLE = _portions(("1 cup, quartered or chopped", 125), ("1 cup slices", 109),
                  ('1 large (3-1/4" dia)', 223), ('1 medium (3" dia)', 182))  # fmt: skip
PEANUT_BUTTER = _portions(("2 tbsp", 32), ("1 cup", 258))
COOKIE = _portions(("1 oz", 28.35), ("1 cookie", 5.0))
FDC = _portions(("cup", 240.0))


@pytest.mark.parametrize(
    ("line", "portions", "grams", "portion"),
    [
        ("2 tbsp butter", BUTTER, 28.4, "1 tbsp = 14.2 g"),
        ("1 stick butter", BUTTER, 113, "1 stick = 113 g"),
        ("3 pats butter", BUTTER, 15, '1 pat (1" sq, 1/3" high) = 5 g'),
        # a tsp through the food's plain volume measure (1 tbsp = 3 tsp)
        ("1 tsp butter", BUTTER, 4.7, "1 tbsp = 14.2 g"),
        ("100 ml butter", BUTTER, 96.0, "1 tbsp = 14.2 g"),
        ("200 g butter", BUTTER, 200, None),
        ("2 oz butter", BUTTER, 56.7, None),
        ("1 lb butter", BUTTER, 453.6, None),
        ("1 cup shredded cheddar", CHEDDAR, 113, "1 cup, shredded = 113 g"),
        ("1 cup cheddar, diced", CHEDDAR, 132, "1 cup, diced = 132 g"),
        ("2 slices cheddar", CHEDDAR, 56, "1 slice (1 oz) = 28 g"),
        ("2 large eggs", EGG, 100, "1 large = 50 g"),
        ("2 eggs", EGG, 88, "1 medium = 44 g"),  # no unit: the medium one
        ("1/2 cup egg", EGG, 121.5, "1 cup (4.86 large eggs) = 243 g"),
        ("1 apple", APPLE, 182, '1 medium (3" dia) = 182 g'),
        ("1 cup chopped apple", APPLE, 125, "1 cup, quartered or chopped = 125 g"),
        ("1 tbsp peanut butter", PEANUT_BUTTER, 16, "2 tbsp = 32 g"),  # a measure of 2
        ("3 cookies", COOKIE, 15, "1 cookie = 5 g"),  # the measure named after the food
        ("1 cup yogurt", FDC, 240, "cup = 240 g"),  # FDC's bare unit: one of it
        ("2-3 large eggs", EGG, 125, "1 large = 50 g"),
        # a compound noun written apart: SR28's "1 sweetpotato"
        (
            "1 sweet potato",
            _portions(("1 cup, cubes", 133), ('1 sweetpotato, 5" long', 130)),
            130,
            '1 sweetpotato, 5" long = 130 g',
        ),
        # a measure with a preparation the line did not ask for comes last
        (
            "1/2 cup heavy cream",
            _portions(("1 cup, whipped", 120), ("1 tbsp", 15)),
            120,
            "1 tbsp = 15 g",
        ),
        (
            "1 tsp black pepper",
            _portions(("1 tsp, ground", 2.3), ("1 dash", 0.1)),
            2.3,
            "1 tsp, ground = 2.3 g",
        ),
        (
            "2 stalks celery",
            _portions(("1 stalk, large", 64), ("1 stalk, medium", 40)),
            80,
            "1 stalk, medium = 40 g",
        ),
        (
            "2 potatoes",
            _portions(("1 Potato large", 369), ("1 Potato medium", 213)),
            426,
            "1 Potato medium = 213 g",
        ),
    ],
)
def test_grams_from_the_foods_own_measure(line, portions, grams, portion):
    parsed = parse_line(line)
    weighing = weigh(parsed, portions, food_words=parsed.food)
    assert weighing.grams == pytest.approx(grams, abs=0.05)
    assert weighing.portion == portion


@pytest.mark.parametrize(
    ("line", "portions", "reason"),
    [
        ("1 cup chicken", _portions(("3 oz", 85), ("1 piece", 272)), "No volume measure"),
        ("2 cloves butter", BUTTER, "No 'clove' measure"),
        ("1 butter", BUTTER, "No count measure"),
        ("butter", BUTTER, "No amount"),
        ("1 cup butter", _portions(("1 cup", None), ("1 tbsp", 0)), "No volume measure"),
    ],
)
def test_a_line_the_food_cannot_weigh_has_a_reason_not_a_guess(line, portions, reason):
    weighing = weigh(parse_line(line), portions)
    assert weighing.grams is None and weighing.reason.startswith(reason)


CELERY = _portions(("1 cup chopped", 101), ("1 tbsp", 7.5), ("1 stalk, medium", 40))
JALAPENO = _portions(("1 cup, sliced", 90), ("1 pepper", 14))


def test_a_small_cut_stands_for_another():
    parsed = parse_line("1 cup diced celery")
    weighing = weigh(parsed, CELERY, food_words=parsed.food)
    assert (weighing.grams, weighing.portion, weighing.fits) == (101, "1 cup chopped = 101 g", True)
    # a cut that is not small keeps to a plain measure
    parsed = parse_line("1 cup sliced celery")
    assert weigh(parsed, CELERY, food_words=parsed.food).portion == "1 tbsp = 7.5 g"


def test_a_count_measure_may_be_named_by_the_first_part_of_the_foods_name():
    parsed = parse_line("2 jalapenos")
    named = weigh(parsed, JALAPENO, food_words=parsed.food, name="Peppers, jalapeno, raw")
    assert (named.grams, named.portion) == (28, "1 pepper = 14 g")
    assert weigh(parsed, JALAPENO, food_words=parsed.food).grams is None
    # a first part of several words names no measure ("Tomato products, ...")
    assert weigh(parsed, JALAPENO, food_words=parsed.food, name="Green peppers, raw").grams is None


HONEY = _portions(("1 cup", 339), ("1 tbsp", 21))  # SR28 19296, Honey


@pytest.mark.parametrize(
    ("line", "portions", "said"),
    [
        # issue 36.6: a clamp of the count let this through as 542 t of honey
        ("99999 gallons honey", HONEY, "Weighs 542,394,576 g (1 cup = 339 g), over the 100 kg"),
        ("200 kg butter", BUTTER, "Weighs 200,000 g, over the 100 kg"),
        ("99999999999 g rice", [], "Weighs 99,999,999,999 g, over"),
        ("1000 large eggs", EGG, ""),  # 50 kg: within
        ("100 kg butter", BUTTER, ""),  # the bound itself is allowed
        ("1 cup honey", HONEY, ""),
    ],
)
def test_the_weight_after_conversion_is_bounded_not_the_count(line, portions, said):
    weighing = weigh(parse_line(line), portions)
    refusal = overweight(weighing)
    assert (weighing.grams > MAX_GRAMS) == bool(said)  # the grams as converted, unclamped
    if said:
        assert refusal.startswith(said)
        assert refusal.endswith("check the amount and the unit.")
    else:
        assert refusal == ""


def test_a_line_not_weighed_is_not_overweight():
    assert overweight(weigh(parse_line("1 butter"), BUTTER)) == ""
