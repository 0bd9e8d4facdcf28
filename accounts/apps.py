from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and tiers"

    def ready(self) -> None:
        from accounts import schema  # noqa: F401  (its OpenAPI description, issue 6)
