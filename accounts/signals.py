"""What the accounts app tells the apps above it, without importing them (issue 37).

``account_limits_changed`` is sent (``account=``) when an account's tier, limits or
market changed, inside the transaction that changed it: whatever was cached of the
account's old limits must go (keys/signals.py drops its keys' cached principals, so
every worker reads the new tier or market on the next request). A receiver that raises
aborts the change, as the direct call it replaces did (the shared key cache
unreachable: the 503 problem, nothing written).
"""

from __future__ import annotations

from django.dispatch import Signal

account_limits_changed = Signal()
