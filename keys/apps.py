from django.apps import AppConfig


class KeysConfig(AppConfig):
    name = "keys"
    verbose_name = "API keys"

    def ready(self) -> None:
        from keys import (
            schema,  # noqa: F401  (its OpenAPI description, issue 6)
            signals,  # noqa: F401  (deactivated owners lose their keys, issue 11)
        )
