"""Settings of the servers bench/scripts/metering_throughput.py starts: the project's,
routed through metering_urls.py (which adds the bare comparison view)."""

from foodservice.settings import *  # noqa: F403

ROOT_URLCONF = "metering_urls"
