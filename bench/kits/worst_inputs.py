"""The inputs of bench/scripts/search_worst.py: ordinary requests of each endpoint, and the
hostile ones found in the hardening rounds (issues 24.1, 36.1), as ``Case`` rows."""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, field

from tests.support.judged.analysis_set import LINES

KM = "\u3316"  # NFKD: six letters
_rng = random.Random(36)


@dataclass(frozen=True)
class Case:
    """One request: ``params`` for a GET, ``body`` for a POST; ``lines``: an analysis
    body's line count (its cost is compared per line); ``ordinary``: one of the
    baseline requests of its ``group`` (the endpoint; a filtered search is set against
    ordinary filtered searches, which rank every match as they do)."""

    endpoint: str
    name: str
    params: dict[str, str] = field(default_factory=dict)
    body: dict | None = None
    lines: int = 0
    ordinary: bool = False
    filtered: bool = False

    @property
    def group(self) -> str:
        return f"{self.endpoint} (filtered, sorted, listed)" if self.filtered else self.endpoint

    @property
    def key(self) -> str:
        return f"{self.endpoint} {self.name}"


def _junk(n: int) -> str:
    return "".join(_rng.choice(string.ascii_lowercase) for _ in range(n))


def _foods(name: str, q: str | None = None, **params: str) -> Case:
    return Case("/v1/foods", name, ({"q": q} if q is not None else {}) | params)


def _ordinary_foods() -> list[Case]:
    queries = ["chicken breast", "apple", "greek yogurt", "brown rice", "cheddar cheese"]
    return [Case("/v1/foods", f"ordinary: {q}", {"q": q}, ordinary=True) for q in queries]


def _hostile_foods() -> list[Case]:
    letters = ["with c", "very b", "just x", "a b", "of t", "c", "ch", "sa"]
    broad = ["che", "cho", "orga", "chicken bre"]
    symbols = [",", "%", "(", "-", "()-%"]
    invisible = ["\u200b", "\u202e", "\ufeff\u2060"]
    cases = [_foods(f"stop word/short: {q!r}", q) for q in letters]
    cases += [_foods(f"broad prefix: {q!r}", q) for q in broad]
    cases += [_foods(f"symbols: {q!r}", q) for q in symbols]
    cases += [_foods(f"invisible: {q.encode('unicode_escape').decode()}", q) for q in invisible]
    cases += [_foods("emoji", "\U0001f355"), _foods("emoji x3", "\U0001f355\U0001f354\U0001f32e")]
    cases += [_foods("50 combining marks", "a" + "\u0301" * 50)]
    cases += [_foods("butter + 150 spaces", "butter" + " " * 150)]
    return cases + _deep_and_long()


def _deep_and_long() -> list[Case]:
    deep = {"page": "100", "page_size": "100"}
    half = {"page": "50", "page_size": "100"}
    return [
        _foods("deep: c, page 100 x 100", "c", **deep),
        _foods("deep: chicken, page 100 x 100", "chicken", **deep),
        _foods("deep: che, page 50 x 100", "che", **half),
        _foods("200 x U+3316", KM * 200),
        _foods("6 words of 32 x U+3316", " ".join([KM * 32] * 6)),
        _foods("6 unknown words of 30 letters", " ".join(_junk(30) for _ in range(6))),
        _foods("100 one-letter words", " ".join("abcdefghij" * 10)),
        _foods("50 unknown three-letter words", " ".join(_junk(3) for _ in range(50))),
        _foods("200 digits", "1234567890" * 20),
    ]


def _filtered() -> list[Case]:
    """Searches that rank every match (a filter, or a sort other than relevance) and
    listings without q (paid tiers), against ordinary ones of the same kind."""
    ordinary = [
        {"q": "cheese", "data_type": "branded"},
        {"q": "chicken", "data_type": "sr_legacy"},
        {"q": "yogurt", "data_type": "branded"},
        {"q": "chicken", "sort": "name"},
        {"q": "cheese", "sort": "-protein"},
        {"sort": "-protein"},
        {"sort": "name", "data_type": "foundation"},
    ]
    hostile = [
        {"q": "che", "data_type": "branded"},
        {"q": "with c", "data_type": "branded"},
        {"q": "a b", "data_type": "sr_legacy"},
        {"q": "che", "sort": "name"},
        {"q": "chicken", "sort": "name", "page": "50", "page_size": "100"},
        {"q": "orga", "sort": "-protein", "page": "20", "page_size": "100"},
        {"sort": "-protein", "page": "100", "page_size": "100"},
        {"sort": "-fiber", "data_type": "branded", "page": "100", "page_size": "100"},
    ]
    cases = [Case("/v1/foods", f"ordinary: {_shown(p)}", p, ordinary=True, filtered=True)
             for p in ordinary]  # fmt: skip
    return cases + [Case("/v1/foods", _shown(p), p, filtered=True) for p in hostile]


def _shown(params: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def _suggest() -> list[Case]:
    ordinary = ["chick", "banana", "gree"]
    hostile = {
        "c": "c",
        "with c": "with c",
        "zero-width space": "\u200b",
        "emoji": "\U0001f355",
        ",": ",",
        "100 one-letter words": " ".join("abcdefghij" * 10),
        "100 x U+3316": KM * 100,
    }
    cases = [Case("/v1/suggest", f"ordinary: {q}", {"q": q}, ordinary=True) for q in ordinary]
    return cases + [Case("/v1/suggest", name, {"q": q}) for name, q in hostile.items()]


def worst_lines() -> list[str]:
    """100 distinct analysis lines of the hostile kinds: a stop word and a letter, a
    letter alone, symbols, invisible characters, emoji, an amount past any food."""
    letters = string.ascii_lowercase
    lines = [f"1 cup with {c}" for c in letters]
    lines += [f"2 tbsp very {c}" for c in letters]
    lines += [f"just {c}" for c in letters]
    lines += ["1 cup %%", "2 tbsp ,", "3 ()", "1 cup \u200b", "2 \u2060", "1 \U0001f355"]
    lines += ["99999 gallons honey", "1 cup " + KM * 30, "2 tbsp " + " ".join(letters)]
    lines += [f"{n} g {_junk(30)}" for n in range(1, 100 - len(lines) + 1)]
    return lines[:100]


def _analysis() -> list[Case]:
    ordinary = [line for line, _, _ in LINES]
    cases = [
        Case("/v1/analysis", "ordinary: 10 lines", body={"ingredients": ordinary[:10]},
             lines=10, ordinary=True),
        Case("/v1/analysis", "ordinary: 100 lines", body={"ingredients": ordinary[:100]},
             lines=100, ordinary=True),
    ]  # fmt: skip
    worst = worst_lines()
    cases.append(Case("/v1/analysis", "100 worst lines", body={"ingredients": worst}, lines=100))
    cases.append(Case("/v1/analysis", "10 worst lines", body={"ingredients": worst[:10]}, lines=10))
    return cases


CASES: list[Case] = [
    *_ordinary_foods(),
    *_hostile_foods(),
    *_filtered(),
    *_suggest(),
    *_analysis(),
]
