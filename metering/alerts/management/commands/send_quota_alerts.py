"""``manage.py send_quota_alerts [--json]``: run the quota-alert check now.

Idempotent: an alert already sent for a threshold in the current window is not sent
again, so this may run from cron as often as wanted (docs/operations.md).
"""

from __future__ import annotations

from typing import Any

from core.cli import ServiceCommand
from metering.alerts.services import quota_alerts_check


class Command(ServiceCommand):
    help = "E-mail the quota alerts that are due (80 % and 100 %); safe to run repeatedly."

    def handle(self, *args: Any, **options: Any) -> None:
        sent = quota_alerts_check()
        rows = [{"account": a.account_id, "threshold": a.threshold} for a in sent]
        lines = [f"Sent {len(sent)} quota alert(s)."]
        lines += [f"  account {r['account']}: {r['threshold']} %" for r in rows]
        self.emit({"sent": rows}, human="\n".join(lines))
