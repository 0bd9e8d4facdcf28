from django.apps import AppConfig


class FoodserviceConfig(AppConfig):
    name = "foodservice"
