"""One request of bench/scripts/search_worst.py at a time through Django's test client, timed:
wall time, the worker's CPU and its PostgreSQL backend's CPU (run in the child process
after ``django.setup()``)."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from django.db import connection
from django.test import Client

from bench.kits.worst_inputs import Case


class Probe:
    """A Head Chef key's client (every market, no burst limit) and its database
    backend's process id."""

    def __init__(self) -> None:
        from accounts.services import account_create
        from keys.services import key_create

        email = f"worst{random.randrange(10**9)}@example.com"
        account = account_create(email=email, tier="head_chef", market="US")
        self.client = Client(HTTP_X_API_KEY=key_create(account=account, label="bench")[1])
        self.client.get("/v1/foods", {"q": "milk"})  # connection open, caches filled
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.backend = cursor.fetchone()[0]

    def send(self, case: Case) -> tuple[int, float, float]:
        """``case``'s status, milliseconds, and CPU milliseconds (worker + backend)."""
        cpu, backend, start = time.process_time(), self._backend_ns(), time.perf_counter()
        if case.body is None:
            status = self.client.get(case.endpoint, case.params).status_code
        else:
            body = json.dumps(case.body)
            status = self.client.post(
                case.endpoint, body, content_type="application/json"
            ).status_code
        ms = (time.perf_counter() - start) * 1000
        used = (time.process_time() - cpu) * 1000 + (self._backend_ns() - backend) / 1e6
        return status, ms, used

    def _backend_ns(self) -> int:
        """Nanoseconds the backend has run on a CPU (its ``schedstat``)."""
        return int(Path(f"/proc/{self.backend}/schedstat").read_text().split()[0])
