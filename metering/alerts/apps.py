from django.apps import AppConfig


class AlertsConfig(AppConfig):
    name = "metering.alerts"
    label = "alerts"
    verbose_name = "Quota alerts"

    def ready(self) -> None:
        from metering.alerts import periodic  # noqa: F401  (runs the check after usage flushes)
