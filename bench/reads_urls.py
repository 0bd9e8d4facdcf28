"""The project's routes plus the two references of bench/reads.py:

- ``/bench/pgraw``: a plain Django view (no DRF, no authentication, no metering) that
  reads a record's response bytes from the one-row table ``bench_raw_record`` by
  primary key with one raw query and returns them;
- ``/bench/floor``: the same bytes from this process's memory.

Both pass through the whole middleware stack, request logging included, like every
other request the server answers.
"""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.urls import path

from foodservice.urls import urlpatterns as project_urlpatterns

RAW_QUERY = "SELECT body FROM bench_raw_record WHERE id = %s"
_floor: list[bytes] = []


def _read() -> bytes:
    with connection.cursor() as cursor:
        cursor.execute(RAW_QUERY, (1,))
        return bytes(cursor.fetchone()[0])


def pgraw(request: HttpRequest) -> HttpResponse:
    return HttpResponse(_read(), content_type="application/json")


def floor(request: HttpRequest) -> HttpResponse:
    if not _floor:
        _floor.append(_read())
    return HttpResponse(_floor[0], content_type="application/json")


urlpatterns = [
    path("bench/pgraw", pgraw),
    path("bench/floor", floor),
    *project_urlpatterns,
]
