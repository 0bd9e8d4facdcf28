"""Fixtures of the API reference tests: the schema as served, and a small catalogue
whose ids are the examples the schema gives (so example requests find records)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.factories import CategoryFactory, FoodFactory, NutrientFactory


@pytest.fixture
def openapi(db: None) -> dict[str, Any]:
    """``GET /openapi.json``, without a key."""
    response = APIClient().get("/openapi.json")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def small_catalogue(db: None) -> list[Any]:
    """30 foods in market US: the schema's example ids (``sr28-01001``, nutrient
    ``203``, category ``dairy-and-egg-products``) and enough butters to page through."""
    NutrientFactory(id=203, name="Protein", unit="g")
    NutrientFactory(id=204, name="Total lipid (fat)", unit="g", rank=800)
    NutrientFactory(id=208, name="Energy", unit="kcal", rank=300)
    dairy = CategoryFactory(slug="dairy-and-egg-products", name="Dairy and Egg Products")
    butter = FoodFactory(
        source_id="01001",
        name="Butter, salted",
        category=dairy,
        serving_description="1 pat",
        serving_grams=5.0,
        portions=[{"description": "1 pat", "gram_weight": 5.0}],
        nutrients={"203": 0.85, "204": 81.11, "208": 717.0},
    )
    others = [
        FoodFactory(
            name=f"Butter blend {n}",
            category=dairy if n % 2 else None,
            data_type="branded" if n % 3 else "sr_legacy",
            brand_owner="Dairy Co" if n % 3 else "",
            nutrients={"203": float(n), "208": 100.0 + n},
        )
        for n in range(29)
    ]
    return [butter, *others]
