"""Settings of the servers bench/metering_throughput.py starts: the project's, routed
through bench/metering_bench_urls.py (which adds the bare comparison view)."""

from foodservice.settings import *  # noqa: F403

ROOT_URLCONF = "metering_bench_urls"
