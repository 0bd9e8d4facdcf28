"""``manage.py send_key_expiry_notices [--json]``: run the key expiry check now.

E-mails the reminders due (7 days and 1 day before a key expires) and audits the keys
that have expired. Idempotent: a stage already done is never done again, so this may
run from cron as often as wanted; each web worker also runs it about once a minute
(docs/operations.md).
"""

from __future__ import annotations

from typing import Any

from core.cli import ServiceCommand
from keys.expiry import key_expiry_check


class Command(ServiceCommand):
    help = "E-mail key expiry reminders that are due and audit expired keys; safe to repeat."

    def handle(self, *args: Any, **options: Any) -> None:
        done = key_expiry_check()
        rows = [{"key": n.key_id, "stage": n.stage} for n in done]
        lines = [f"Acted on {len(done)} key expiry stage(s)."]
        lines += [
            f"  key {r['key']}: " + ("expired" if r["stage"] == 0 else f"{r['stage']} day(s) left")
            for r in rows
        ]
        self.emit({"done": rows}, human="\n".join(lines))
