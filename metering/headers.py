"""The RateLimit response headers of a metered response (spec 8.4). Pure.

Two vocabularies, the same numbers:

- spec 8.4: ``RateLimit-Limit``, ``RateLimit-Remaining``, ``RateLimit-Reset`` (seconds)
  and ``X-RateLimit-Reset`` (Unix time), all about the quota window;
- the IETF draft (draft-ietf-httpapi-ratelimit-headers, structured fields): the
  ``RateLimit-Policy`` list describes the ``"quota"`` policy (``q`` requests per ``w``
  seconds) and, unless unthrottled, the ``"burst"`` policy (``q`` = bucket size, ``w`` =
  seconds an empty bucket takes to refill); the ``RateLimit`` list gives each policy's
  ``r`` (remaining) and ``t``. Clients pace on ``t`` (issue 14.4): with ``r=0`` it is the
  seconds until that policy admits a request again (for the quota: when enough counted
  hours have aged out, or the renewal; for the burst: when one token is back), so on
  the quota 429 the quota's ``t`` equals ``Retry-After``. With ``r>0`` it is when the
  policy resets: allowance next frees up (as ``RateLimit-Reset``) for the quota, the
  bucket is full again for the burst.
"""

from __future__ import annotations

from metering.decisions import MeterDecision

QUOTA_POLICY = "quota"
BURST_POLICY = "burst"


def ratelimit_headers(decision: MeterDecision) -> dict[str, str]:
    """Every RateLimit header for ``decision``: on admitted metered responses (2xx, 304,
    4xx) and on the quota 429. Never on the burst 429 (spec 7)."""
    policies = [f'"{QUOTA_POLICY}";q={decision.quota};w={decision.window.seconds}']
    quota_t = decision.quota_admits_in or decision.reset_after
    current = [f'"{QUOTA_POLICY}";r={decision.remaining};t={quota_t}']
    if decision.bucket is not None:
        policies.append(
            f'"{BURST_POLICY}";q={decision.bucket.size};w={decision.bucket.refill_seconds}'
        )
        burst_t = decision.bucket_admits_in or decision.bucket_full_in
        current.append(f'"{BURST_POLICY}";r={decision.bucket_tokens};t={burst_t}')
    return {
        "RateLimit-Limit": str(decision.quota),
        "RateLimit-Remaining": str(decision.remaining),
        "RateLimit-Reset": str(decision.reset_after),
        "X-RateLimit-Reset": str(decision.reset_epoch),
        "RateLimit-Policy": ", ".join(policies),
        "RateLimit": ", ".join(current),
    }
