"""An e-mail backend whose server is down (for the retry test)."""

from __future__ import annotations

import smtplib
from collections.abc import Sequence
from typing import Any

from django.core.mail.backends.base import BaseEmailBackend


class EmailBackend(BaseEmailBackend):
    def send_messages(self, email_messages: Sequence[Any]) -> int:
        raise smtplib.SMTPServerDisconnected("connection refused")
