"""Settings of the server bench/scripts/reads.py starts: the project's own (request
logging as configured by ``LOG_LEVEL``), routed through reads_urls.py, which adds the
reference views ``pgraw`` and ``floor``."""

from foodservice.settings import *  # noqa: F403

ROOT_URLCONF = "reads_urls"
