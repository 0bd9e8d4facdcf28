"""Writes the schema the service serves at ``/openapi.json`` to the file named by the
first argument, for ``make lint-openapi`` (issue 14.7).

The schema is read through the real URL and view (Django's test client), so the linted
document is the served one. The settings are the embedded default on a throwaway
SQLite database (migrated here), whatever the environment says: the schema does not
depend on the backends, and a lint never touches a real database.
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(target: str) -> None:
    for name in ("DATABASE_URL", "REDIS_URL", "BASE_URL", "HOST", "PORT"):
        os.environ.pop(name, None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "foodservice.settings"
    os.environ["LOG_LEVEL"] = "ERROR"
    sys.path.insert(0, str(ROOT))
    warnings.filterwarnings("ignore", "No directory at")  # no collectstatic here
    with tempfile.TemporaryDirectory(prefix="foodservice-openapi-") as var:
        os.environ["FOODSERVICE_VAR_DIR"] = var
        import django
        from django.core.management import call_command
        from django.test import Client

        django.setup()
        call_command("migrate", verbosity=0)
        response = Client().get("/openapi.json")
        if response.status_code != 200:
            raise SystemExit(f"/openapi.json answered {response.status_code}")
        Path(target).write_bytes(response.content)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: served_schema.py OUTPUT.json")
    main(sys.argv[1])
