"""Synonyms apply only where they are the market's meaning (issue 39, point 1): a word
the market's own reference foods are named by is never rewritten in that market (US
"jelly" is jam, not the British gelatin dessert). Checked against the installed USDA
data (SR28 and FDC's reference rows: what market US is loaded from), without a database."""

from __future__ import annotations

import csv
import functools
import re

import pytest

from catalogue.importers import fdc, sr28
from catalogue.search import synonyms, text

REFERENCE = ("foundation_food", "sr_legacy_food", "survey_fndds_food")


@functools.cache
def us_reference_heads() -> frozenset[str]:
    """The words market US's reference foods are named by: each name's head (the text
    before its first comma) and, after a class head ("Nuts, almonds"), the next segment."""
    try:
        names = [sr28.fields(line)[2] for line in _sr28_lines()]
        with fdc.default_file().open(encoding="utf-8", newline="") as handle:
            rows = csv.reader(handle)
            next(rows)
            names += [row[0] for row in rows if len(row) > 1 and row[1] in REFERENCE]
    except FileNotFoundError:
        pytest.skip("the USDA packages are not installed")
    heads = set()
    for name in names:
        segments = [" ".join(text.words(s)) for s in re.split(r"[,;(]", name)]
        segments = [s for s in segments if s]
        if segments:
            heads.add(segments[0])
            stems = " ".join(text.stem(w) for w in segments[0].split())
            if stems in text.CLASS_HEADS and len(segments) > 1:
                heads.add(segments[1])
    return frozenset(heads)


def _sr28_lines() -> list[str]:
    path = sr28.default_dir() / "FOOD_DES.txt"
    return path.read_text(encoding="latin-1").splitlines()


def _us_rows() -> list[tuple[str, str]]:
    """(typed, searched) of market US's table, as written in the file."""
    with synonyms.TABLE.open(newline="", encoding="utf-8") as handle:
        lines = (line for line in handle if line.strip() and not line.startswith("#"))
        return [(r["typed"], r["searched"]) for r in csv.DictReader(lines) if r["market"] == "US"]


def test_no_typed_word_of_market_us_names_a_us_reference_food():
    heads = us_reference_heads()
    wrong = []
    for typed, searched in _us_rows():
        word = " ".join(text.words(typed))
        if " " in word:
            continue  # a phrase ("king prawn") is its own name
        # The same word written joined is the same food ("kiwi" -> "kiwifruit").
        if "".join(text.words(searched)).startswith(word):
            continue
        if word in heads:
            wrong.append((typed, searched))
    assert not wrong, f"market US names foods by these typed words: {wrong}"


@pytest.mark.parametrize(
    "q",
    [
        "peanut butter and jelly sandwich",
        "peanut butter jelly",
        "grape jelly",
        "jelly",
        "lemonade",
        "pawpaw",
    ],
)
def test_us_words_are_searched_as_typed_in_market_us(q):
    assert synonyms.rewrite(q, "US") == (q, ())


def test_the_british_words_still_map_in_market_us():
    assert synonyms.rewrite("aubergine", "US")[0] == "eggplant"
    assert synonyms.rewrite("courgette bake", "US")[0] == "zucchini bake"
