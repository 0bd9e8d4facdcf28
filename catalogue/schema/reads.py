"""What every metered catalogue read has in the OpenAPI schema: the problems of the
meter and of authentication, the RateLimit headers, ``If-None-Match``/``ETag``/304 and
the 414."""

from __future__ import annotations

from typing import Any

from core import problems
from core.openapi import (
    conditional_headers,
    not_modified,
    operation,
    ratelimit_headers,
    uri_too_long,
)

# The problems any metered operation can answer with (POST /v1/analysis too).
METERED_KINDS = (
    problems.Unauthorized,
    problems.QuotaExceeded,
    problems.BurstLimitExceeded,
    problems.InternalError,
    problems.ServiceUnavailable,
)
METERED_NOTE = (
    " Metered: counts against the quota (also when answered 304, 400, 403 or 404) and "
    "carries the RateLimit headers."
)


def read(*, description: str, kinds: tuple, parameters: list | None = None, **rest: Any) -> Any:
    """A metered, conditional catalogue read: ``core.openapi.operation`` plus
    ``If-None-Match``/``ETag``/304, the RateLimit headers, both 429s and the 414."""
    return operation(
        description=description + METERED_NOTE,
        kinds=(*kinds, *METERED_KINDS),
        parameters=[*(parameters or []), *conditional_headers(), *ratelimit_headers()],
        responses={**not_modified(), **uri_too_long()},
        **rest,
    )
