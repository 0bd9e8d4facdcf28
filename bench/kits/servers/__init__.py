"""Settings and URLconfs of the servers bench scripts start (reads.py,
metering_throughput.py). This directory goes on the server's ``PYTHONPATH`` and each
module is imported by its own name (``DJANGO_SETTINGS_MODULE=reads_settings``), so a
server running another checkout's code (``--server-root``) still gets this tree's
reference views."""
