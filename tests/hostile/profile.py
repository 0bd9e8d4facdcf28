"""Hypothesis settings for the hostile-input properties (issue 7.7).

``ci`` (the default) keeps the suite fast: 50 examples per property. ``long`` is the
thorough run, 2,000 per property: ``HYPOTHESIS_PROFILE=long pytest tests/hostile`` or
``make test-hostile-long``. No deadline: examples run against the real database and
Redis, whose latency varies. Applied per test (``@hostile``), so the rest of the suite
keeps Hypothesis's own defaults.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}
settings.register_profile("hostile-ci", max_examples=50, **_COMMON)
settings.register_profile("hostile-long", max_examples=2000, **_COMMON)

_LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
hostile = settings(settings.get_profile("hostile-long" if _LONG else "hostile-ci"))


# 8 KB and more, built by repeating a short random text (cheap for Hypothesis to make).
huge_text = st.builds(
    lambda chunk, extra: (chunk * (8192 // len(chunk) + 1))[: 8192 + extra],
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=40),
    st.integers(0, 100),
)
