"""The log formatters of ``settings.LOGGING`` and the secret redaction (issue 7.4). Pure.

``LOG_FORMAT=json`` (the default) writes one JSON object per line; ``LOG_FORMAT=text``
writes the same content for people. Both replace anything shaped like an API key
(``svc_sk_live_`` and what follows it) by ``[redacted]`` in every line, whatever logger
it came from: Django's own ``Not Found: <path>`` warnings included. Only the standard
library is imported here, because logging is configured before the apps are loaded.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from typing import Any

# The key prefix (spec 2.3) and whatever follows it: a whole or partial secret.
_SECRET = re.compile(r"svc_sk_live_[A-Za-z0-9]*")
_TOKEN = re.compile(r"[!-~]+", re.ASCII)  # printable ASCII, no space
REDACTED = "[redacted]"
# The request line's fields, in order (foodservice/http/requestlog.py writes them).
REQUEST_FIELDS = (
    "method",
    "path",
    "endpoint",
    "status",
    "latency_ms",
    "account_id",
    "key_id",
    "tier",
    "metered",
    "request_id",
)


def redact(text: str) -> str:
    """``text`` with every API key (or key-like fragment) replaced by ``[redacted]``."""
    return _SECRET.sub(REDACTED, text)


def holds_secret(text: str) -> bool:
    return _SECRET.search(text) is not None


def _plain(value: object) -> str:
    """A field value for the text format: quoted (JSON) unless it is one printable token,
    so a path holding a space or a newline cannot forge another field or line."""
    text = str(value)
    return text if _TOKEN.fullmatch(text) else json.dumps(text, ensure_ascii=False)


def _timestamp(record: logging.LogRecord) -> str:
    return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``time``, ``level``, ``logger``, ``message``, the
    request fields when present, and ``exc`` (the trace) for an exception. Redacted."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _timestamp(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in REQUEST_FIELDS:
            if name in record.__dict__:
                line[name] = record.__dict__[name]
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return redact(json.dumps(line, default=str, ensure_ascii=False))


class TextFormatter(logging.Formatter):
    """The same content for people: ``time level logger message key=value ...``."""

    def format(self, record: logging.LogRecord) -> str:
        parts = [_timestamp(record), record.levelname, record.name, record.getMessage()]
        parts += [
            f"{n}={_plain(record.__dict__[n])}" for n in REQUEST_FIELDS if n in record.__dict__
        ]
        text = " ".join(str(p) for p in parts)
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return redact(text)
