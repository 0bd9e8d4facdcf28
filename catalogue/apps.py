from django.apps import AppConfig


class CatalogueConfig(AppConfig):
    name = "catalogue"
    verbose_name = "Food catalogue"

    def ready(self) -> None:
        from catalogue import (
            market_schema,  # noqa: F401  (GET/PUT /v1/market, issue 37: from accounts)
            schema,  # noqa: F401  (its OpenAPI description, issue 6)
        )
        from catalogue.analysis import schema as analysis_schema  # noqa: F401  (issue 26)
