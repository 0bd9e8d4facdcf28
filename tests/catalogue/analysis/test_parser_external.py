"""The parser on external labelled lines (issue 38.2): strangetom/ingredient-parser's
test_parser.json (all 472 sentences) and 1,000 rows of its NYT snapshot chosen by a
fixed seed, vendored in tests/catalogue/data/parser_external/, judged by
tests/support/judged/parser_external.py (the judging bench/scripts/parser_external.py
uses on all 26,685 NYT rows). The floors are issue 38's targets."""

from __future__ import annotations

from catalogue.analysis.parser import Package, ParsedLine
from catalogue.analysis.units import UNITS
from tests.support.judged import parser_external as scorer


def _share(outcomes: list[scorer.Outcome]) -> float:
    right, n = scorer.rates(outcomes)["all"]
    return right / n


def test_the_nyt_sample_meets_the_target():
    outcomes = scorer.evaluate(scorer.nyt_sample())
    assert len(outcomes) == scorer.NYT_SAMPLE_SIZE
    assert _share(outcomes) >= scorer.TARGETS["nyt"], "\n".join(scorer.report(outcomes))


def test_test_parser_json_meets_the_target():
    outcomes = scorer.evaluate(scorer.parser_json_rows())
    assert len(outcomes) == 472
    assert _share(outcomes) >= scorer.TARGETS["test_parser"], "\n".join(scorer.report(outcomes))


def test_the_vendored_sets_are_whole_and_licensed():
    assert len(scorer.nyt_rows()) == 26685
    assert "MIT License" in (scorer.DATA / "LICENSE").read_text()


def _fixed(parsed: ParsedLine):
    return lambda line: parsed


def test_a_package_size_leaves_the_labels_before_they_are_compared():
    # NYT labels "2 28-ounce cans" as quantity "2 28", unit "can ounce"
    row = scorer.Row(
        "2 28-ounce cans tomatoes", ((2, 2), (28, 28)), ("can", "oz"), "tomatoes", "nyt"
    )
    right = ParsedLine(2, UNITS["can"], "tomatoes", package=Package(28, UNITS["oz"]))
    assert scorer.judge(row, _fixed(right)).right
    wrong = ParsedLine(28, UNITS["oz"], "cans tomatoes")  # the size read as the amount
    assert not scorer.judge(row, _fixed(wrong)).right


def test_upstream_spellings_map_to_ours():
    assert [scorer.unit_name(s) for s in ("tablespoons", "medium-size", "bunches", "grams")] == [
        "tbsp", "medium", "bunch", "g",
    ]  # fmt: skip


def test_a_unit_written_only_after_the_comma_is_no_unit_of_the_amount():
    # NYT: "1 whole chicken, about 4 pounds" is labelled "1 4" / "pound"
    row = scorer.Row("1 whole chicken, about 4 pounds", ((1, 1), (4, 4)), ("lb",), "chicken", "nyt")
    assert scorer.judge(row, _fixed(ParsedLine(1, None, "whole chicken"))).right


def test_a_composite_amount_is_right_summed_or_as_its_first_part():
    row = scorer.Row(
        "2 tablespoons plus 2 teaspoons baking powder", ((2, 2),), ("tbsp",), "baking powder", "nyt"
    )
    summed = ParsedLine(2 + 2 / 3, UNITS["tbsp"], "baking powder")
    assert scorer.judge(row, _fixed(summed)).right
    assert not scorer.judge(row, _fixed(ParsedLine(3, UNITS["tbsp"], "baking powder"))).right


def test_the_report_lists_every_miss_and_the_rates():
    rows = scorer.parser_json_rows()[:20]
    outcomes = scorer.evaluate(rows, _fixed(ParsedLine(None, None, "")))
    report = scorer.report(outcomes)
    assert sum(line.startswith("MISS ") for line in report) == 20
    assert report[-1] == "all: 0/20 = 0.0 %"
