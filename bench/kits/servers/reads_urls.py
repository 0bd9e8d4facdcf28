"""The project's routes plus the references of bench/scripts/reads.py:

- ``/bench/pgraw``: a plain Django view (no DRF, no authentication, no metering) that
  reads a record's response bytes from the one-row table ``bench_raw_record`` by
  primary key with one raw query and returns them;
- ``/bench/floor``: the same bytes from this process's memory;
- ``/bench/pgraw/<public_id>`` (``--spread``'s floor for records): a food's stored
  record bytes, found by public id with one raw query and no check of their version,
  market or freshness, and decompressed (renderings are stored zlib-compressed since
  issue 41.2): the same random rows as the spread's records, read the cheapest way.

Both pass through the whole middleware stack, request logging included, like every
other request the server answers.
"""

from __future__ import annotations

import zlib

from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.urls import path

from foodservice.urls import urlpatterns as project_urlpatterns

RAW_QUERY = "SELECT body FROM bench_raw_record WHERE id = %s"
FOOD_QUERY = (
    "SELECT r.record FROM catalogue_food f JOIN catalogue_foodrendering r ON r.food_id = f.id "
    "WHERE f.public_id = %s"
)
_floor: list[bytes] = []


def _read() -> bytes:
    with connection.cursor() as cursor:
        cursor.execute(RAW_QUERY, (1,))
        return bytes(cursor.fetchone()[0])


def pgraw(request: HttpRequest) -> HttpResponse:
    return HttpResponse(_read(), content_type="application/json")


def pgraw_food(request: HttpRequest, public_id: str) -> HttpResponse:
    with connection.cursor() as cursor:
        cursor.execute(FOOD_QUERY, (public_id,))
        row = cursor.fetchone()
    if row is None:
        return HttpResponse(status=404)
    body = bytes(row[0])
    if body[:1] != b"{":  # compressed (this tree); a baseline's (--server-root) is not
        body = zlib.decompress(body)
    return HttpResponse(body, content_type="application/json")


def floor(request: HttpRequest) -> HttpResponse:
    if not _floor:
        _floor.append(_read())
    return HttpResponse(_floor[0], content_type="application/json")


urlpatterns = [
    path("bench/pgraw", pgraw),
    path("bench/pgraw/<str:public_id>", pgraw_food),
    path("bench/floor", floor),
    *project_urlpatterns,
]
