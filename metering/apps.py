from django.apps import AppConfig


class MeteringConfig(AppConfig):
    name = "metering"
    verbose_name = "Metering and usage"

    def ready(self) -> None:
        # The system checks, and the OpenAPI description of /v1/usage (issue 6).
        from metering import checks, schema  # noqa: F401
        from metering.recorder import flush_on_stop

        # SIGTERM (systemd, Docker, Kubernetes) flushes what was counted (issue 36.5).
        flush_on_stop()
