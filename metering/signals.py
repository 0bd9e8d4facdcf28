"""Signals metering sends for others to act on, without metering importing them."""

from __future__ import annotations

from django.dispatch import Signal

# Sent by ``metering.services.usage_flush`` after the usage history was written, from
# the flusher's thread, with ``account_ids``: the accounts whose usage it wrote.
# Receivers run off the request path; an exception in one is logged, never raised.
usage_flushed = Signal()
