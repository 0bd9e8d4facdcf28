from django.apps import AppConfig


class MeteringConfig(AppConfig):
    name = "metering"
    verbose_name = "Metering and usage"

    def ready(self) -> None:
        from metering import checks  # noqa: F401  (registers the system checks)
