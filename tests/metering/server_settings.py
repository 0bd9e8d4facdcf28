"""Settings of the server processes the metering server tests start: the project's,
routed through tests/metering/urls.py (which adds the stand-in metered view)."""

from foodservice.settings import *  # noqa: F403

ROOT_URLCONF = "tests.metering.urls"
