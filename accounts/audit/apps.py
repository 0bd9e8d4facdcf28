from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "accounts.audit"
    label = "audit"
    verbose_name = "Audit log"

    def ready(self) -> None:
        from accounts.audit import receivers  # noqa: F401  (sign-ins, through Django's auth signals)
