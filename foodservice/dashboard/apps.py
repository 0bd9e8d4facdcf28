from django.apps import AppConfig


class DashboardConfig(AppConfig):
    """The server-rendered dashboard: an adapter over the domain apps (STYLE.md)."""

    name = "foodservice.dashboard"
    label = "dashboard"
    verbose_name = "Dashboard"
