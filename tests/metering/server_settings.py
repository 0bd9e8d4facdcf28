"""Settings of the server processes the metering server tests start: every test
server's (tests/support/server_settings.py), routed through tests/metering/urls.py
(which adds the stand-in metered view)."""

from tests.support.server_settings import *  # noqa: F403

ROOT_URLCONF = "tests.metering.urls"
