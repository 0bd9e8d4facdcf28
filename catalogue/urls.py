"""/v1 catalogue routes (foods, records by id). Included under /v1/ before the
catch-all 404, so an unknown resource type or a malformed path is a 404 problem."""

from __future__ import annotations

from django.urls import path

from catalogue import api
from catalogue.analysis.api import AnalysisView

urlpatterns = [
    path("analysis", AnalysisView.as_view(), name="analysis"),
    path("foods", api.FoodListView.as_view(), name="foods"),
    path("suggest", api.SuggestView.as_view(), name="suggest"),
    path("foods/<str:public_id>", api.FoodDetailView.as_view(), name="food"),
    path("barcodes/<str:code>", api.BarcodeView.as_view(), name="barcode"),
    path("nutrients/<str:nutrient_id>", api.NutrientDetailView.as_view(), name="nutrient"),
    path("categories/<str:slug>", api.CategoryDetailView.as_view(), name="category"),
    path("sources", api.SourceListView.as_view(), name="sources"),
    path("nutrients", api.NutrientListView.as_view(), name="nutrients"),
    path("categories", api.CategoryListView.as_view(), name="categories"),
]
