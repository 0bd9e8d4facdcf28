"""Read-mostly admin views of the catalogue (the loaders own the data)."""

from __future__ import annotations

from django.contrib import admin

from catalogue.models import Category, Food, Market, Nutrient


@admin.register(Food)
class FoodAdmin(admin.ModelAdmin):
    list_display = ("public_id", "name", "data_type", "category", "market")
    list_filter = ("data_type", "source", "market")
    search_fields = ("public_id", "name")
    raw_id_fields = ("category",)
    show_full_result_count = False  # 400k rows: no COUNT(*) per page


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "usda_code")
    search_fields = ("slug", "name")


@admin.register(Nutrient)
class NutrientAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "unit", "fdc_id", "rank")
    search_fields = ("name",)


@admin.register(Market)
class MarketAdmin(admin.ModelAdmin):
    list_display = ("code", "name")
