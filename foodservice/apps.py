from django.apps import AppConfig


class FoodserviceConfig(AppConfig):
    name = "foodservice"

    def ready(self) -> None:
        # The system checks of the proxy settings.
        from foodservice.ops import checks  # noqa: F401
