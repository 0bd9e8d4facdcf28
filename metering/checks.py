"""System checks for the metering settings (``manage.py check``, and at start-up)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Warning, register

from metering.backends import LUA_PATH


@register()
def metering_settings(app_configs: Any = None, **kwargs: Any) -> list[Error | Warning]:
    problems: list[Error | Warning] = []
    if settings.METER_BACKEND == "redis" and not settings.REDIS_URL:
        problems.append(
            Error("METER_BACKEND=redis needs REDIS_URL.", id="metering.E001"),
        )
    if not LUA_PATH.is_file():
        problems.append(Error(f"The metering script {LUA_PATH} is missing.", id="metering.E002"))
    if settings.METER_FAILURE_POLICY not in ("open", "closed"):
        problems.append(
            Error("METER_FAILURE_POLICY must be 'open' or 'closed'.", id="metering.E003")
        )
    if float(settings.METER_FLUSH_SECONDS) <= 0:
        problems.append(
            Warning(
                "METER_FLUSH_SECONDS <= 0: usage history is written only by usage_flush().",
                id="metering.W002",
            )
        )
    if not settings.METERING_ENABLED:
        problems.append(
            Warning(
                "METERING_ENABLED is off: no quota, no burst limit, no usage history.",
                hint="Only for benchmarks; never in production.",
                id="metering.W001",
            )
        )
    return problems
