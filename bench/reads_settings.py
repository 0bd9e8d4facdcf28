"""Settings of the server bench/reads.py starts: the project's own (request logging as
configured by ``LOG_LEVEL``), routed through bench/reads_urls.py, which adds the two
reference views ``pgraw`` and ``floor``."""

from foodservice.settings import *  # noqa: F403

ROOT_URLCONF = "reads_urls"
