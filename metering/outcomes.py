"""Usage you can debug (issue 40.3): every request made with a key, by endpoint and
answer, and the recent-requests log.

The meter (backends.py) decides and counts a request before its view runs, so it knows
admitted, refused by the quota or the burst limit, and given back after a 5xx, but not
what the view answered (200, 304, 404, 400, ...) nor the requests refused before it (a
401 for a disallowed address, a revoked or an expired key). Those are noted here, after
the response, by the request log middleware (``outcome_note``), into this worker's
buffer: no query and no round trip on the request's path. The usage flusher
(recorder.py) writes the buffer every ``METER_FLUSH_SECONDS`` (``outcomes_flush``):

- ``KeyRequestOutcome``: counts per key, UTC hour, endpoint, status, problem kind and
  whether the request counted; added to the stored rows, so many workers add up, and
  the counted rows of an hour equal the meter's ``KeyUsageHour.count``;
- ``KeyRequest``: each key's newest requests (time, method, path, status, latency,
  address, request id), the newest ``KEEP_REQUESTS`` per key and none older than
  ``KEEP_REQUEST_HOURS``; each worker keeps only its newest ``KEEP_REQUESTS`` per key
  between writes, so a burst costs no more than a quiet key.

A refused request whose key is known is written to that key: the address refusal knows
the key; a revoked or expired key is known by its stored digest, which the refusal
notes (the same keyed hash for any secret, so the 401's path and timing do not tell a
revoked key from an unknown one) and the flush looks up (one query for all the digests
of a write, at most ``MAX_REFUSED_DIGESTS`` of them; digests of no key are dropped).
A rotated key's old secret has no stored digest: its requests are not attributed.

Nothing secret is kept: the path has anything shaped like a key redacted, and the query
string, headers and bodies are never kept (the request log line's rule). A worker
killed without a stop (SIGKILL, out of memory) loses what it noted since its last write,
a few seconds; the meter's own counts are unaffected.
"""

from __future__ import annotations

import re
import threading
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q, Sum, Window
from django.db.models.functions import RowNumber
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from core.calendar import hour_start
from core.clientaddr import client_address
from core.logformat import redact
from core.requestnotes import notes_of
from keys.selectors import keys_by_digest
from metering.models import KeyRequest, KeyRequestOutcome

KEEP_REQUESTS = 100
KEEP_REQUEST_HOURS = 24
MAX_REFUSED_DIGESTS = 1000
UPSERT_BATCH = 500
PATH_LENGTH = 200
API_PREFIX = "/v1/"

# (hour start, endpoint, status, kind, counted)
OutcomeKey = tuple[datetime, str, int, str, bool]


@dataclass(frozen=True, slots=True)
class RequestEntry:
    """One request as the log keeps it."""

    at: datetime
    method: str
    path: str
    endpoint: str
    status: int
    kind: str
    latency_ms: float
    address: str
    request_id: str


@dataclass(slots=True)
class _Slot:
    """One key's (or one refused digest's) requests since the last write."""

    account_id: int | None
    counts: Counter[OutcomeKey] = field(default_factory=Counter)
    recent: deque[RequestEntry] = field(default_factory=lambda: deque(maxlen=KEEP_REQUESTS))

    def merge(self, other: _Slot) -> None:
        self.counts.update(other.counts)
        entries = sorted([*self.recent, *other.recent], key=lambda e: e.at)
        self.recent = deque(entries[-KEEP_REQUESTS:], maxlen=KEEP_REQUESTS)


# A key's id, or the digest of a refused secret whose key the flush looks up.
Ref = int | str


class OutcomeBuffer:
    """This worker's noted requests, by key; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._slots: dict[Ref, _Slot] = {}
        self._digests = 0

    def note(self, ref: Ref, account_id: int | None, entry: RequestEntry, *, counted: bool) -> None:
        hour = entry.at.replace(minute=0, second=0, microsecond=0)
        with self._lock:
            slot = self._slots.get(ref)
            if slot is None:
                if isinstance(ref, str):
                    if self._digests >= MAX_REFUSED_DIGESTS:
                        return  # a flood of made-up keys: nothing to attribute them to
                    self._digests += 1
                slot = self._slots[ref] = _Slot(account_id)
            slot.counts[(hour, entry.endpoint, entry.status, entry.kind, counted)] += 1
            slot.recent.append(entry)

    def take(self) -> dict[Ref, _Slot]:
        with self._lock:
            slots, self._slots, self._digests = self._slots, {}, 0
        return slots

    def put_back(self, slots: dict[Ref, _Slot]) -> None:
        """Return slots whose write failed, for the next flush."""
        with self._lock:
            for ref, slot in slots.items():
                mine = self._slots.get(ref)
                if mine is None:
                    self._slots[ref] = slot
                    self._digests += isinstance(ref, str)
                else:
                    slot.merge(mine)
                    self._slots[ref] = slot

    def clear(self) -> None:
        self.take()


buffer = OutcomeBuffer()


# --- Noting a request -----------------------------------------------------------------


_CONVERTER = re.compile(r"<(?:\w+:)?(\w+)>")


@lru_cache(maxsize=256)
def _route_path(route: str) -> str:
    """``v1/foods/<str:public_id>`` -> ``/v1/foods/{public_id}``; a pattern route (the
    /v1 catch-all 404) -> ``other``."""
    if "^" in route or "$" in route or "(" in route:
        return "other"
    return "/" + _CONVERTER.sub(r"{\1}", route)


def endpoint_of(request: HttpRequest) -> str:
    """``GET /v1/foods/{public_id}``: the method and the route, never the path as
    sent (bounded, whatever the client sends)."""
    match = getattr(request, "resolver_match", None)
    route = _route_path(match.route) if match is not None and match.route else "other"
    return f"{_method(request)} {route}"


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def _method(request: HttpRequest) -> str:
    return request.method if request.method in _METHODS else "OTHER"


def _entry(
    request: HttpRequest, *, endpoint: str, status: int, kind: str, seconds: float, hour: int | None
) -> RequestEntry:
    """The log entry of ``request`` as ``endpoint`` answered it. ``hour``: the hour number
    the meter counted it in, if metered: the entry is counted there even if the answer
    came later."""
    at = timezone.now()
    if hour is not None:
        start = hour_start(hour)
        if not start <= at < start + timedelta(hours=1):
            at = start + timedelta(hours=1) - timedelta(microseconds=1)
    return RequestEntry(
        at=at,
        method=_method(request),
        path=redact(request.path)[:PATH_LENGTH],
        endpoint=endpoint[:80],
        status=status,
        kind=kind[:40],
        latency_ms=round(seconds * 1000, 2),
        address=client_address(request.META, proxies=settings.TRUSTED_PROXY_COUNT)[:64],
        request_id=(notes_of(request).request_id or "")[:128],
    )


def outcome_note(
    request: HttpRequest, response: HttpResponse, *, seconds: float, kind: str | None
) -> None:
    """Note a /v1 request whose key is known (authenticated, or refused with a key
    that exists or may exist) in this worker's buffer. Never raises for a request that
    has no key."""
    if not request.path.startswith(API_PREFIX):
        return
    notes = notes_of(request)
    principal = notes.principal
    ref: Ref | None = None
    account_id: int | None = None
    if principal is not None:
        ref, account_id = principal.key_id, principal.account_id
    elif notes.refused_key is not None:
        ref, account_id = notes.refused_key
    elif notes.refused_digest is not None:
        ref = notes.refused_digest
    if ref is None:
        return
    decision = notes.meter_decision
    counted = (
        decision is not None
        and decision.refused_by is None
        and not notes.meter_refunded
        and response.status_code < 500
    )
    entry = _entry(
        request,
        endpoint=endpoint_of(request),
        status=response.status_code,
        kind=kind or "",
        seconds=seconds,
        hour=None if decision is None else decision.hour,
    )
    buffer.note(ref, account_id, entry, counted=counted)


def outcome_note_for(
    request: HttpRequest,
    *,
    key_id: int,
    account_id: int,
    endpoint: str,
    status: int,
    kind: str = "",
    counted: bool,
    seconds: float,
    hour: int | None = None,
) -> None:
    """Note a request metered outside the API's views (the dashboard's playground, which
    meters the chosen key itself) as the request ``endpoint`` would be, with the path
    and address of ``request`` and the ``hour`` its decision counted it in; so the
    outcomes stay exact against the meter."""
    entry = _entry(request, endpoint=endpoint, status=status, kind=kind, seconds=seconds, hour=hour)
    buffer.note(key_id, account_id, entry, counted=counted)


# --- Writing --------------------------------------------------------------------------


def outcomes_flush(*, now: datetime | None = None) -> int:
    """Write this worker's noted requests (module docstring); returns the number of
    requests written. On failure everything taken is put back and the error raised."""
    slots = buffer.take()
    if not slots:
        return 0
    try:
        return _write(slots, now=now or timezone.now())
    except Exception:
        buffer.put_back(slots)
        raise


def _write(slots: dict[Ref, _Slot], *, now: datetime) -> int:
    digests = [ref for ref in slots if isinstance(ref, str)]
    found = keys_by_digest(digests) if digests else {}
    by_key: dict[int, _Slot] = {}
    for ref, slot in slots.items():
        if isinstance(ref, str):
            if ref not in found:
                continue  # no such key
            key_id, account_id = found[ref]
            slot = _Slot(account_id, slot.counts, slot.recent)
        else:
            key_id = ref
        if key_id in by_key:
            by_key[key_id].merge(slot)
        else:
            by_key[key_id] = slot
    alive = _alive(by_key)
    counts = [
        (key_id, slot.account_id, *outcome, n)
        for key_id, slot in by_key.items()
        if key_id in alive
        for outcome, n in slot.counts.items()
    ]
    cutoff = now - timedelta(hours=KEEP_REQUEST_HOURS)
    entries = [
        KeyRequest(
            key_id=key_id,
            account_id=slot.account_id,
            at=e.at,
            method=e.method,
            path=e.path,
            endpoint=e.endpoint,
            status=e.status,
            kind=e.kind,
            latency_ms=e.latency_ms,
            address=e.address,
            request_id=e.request_id,
        )
        for key_id, slot in by_key.items()
        if key_id in alive
        for e in slot.recent
        if e.at > cutoff
    ]
    with transaction.atomic():
        for start in range(0, len(counts), UPSERT_BATCH):
            _add(counts[start : start + UPSERT_BATCH])
        KeyRequest.objects.bulk_create(entries, batch_size=UPSERT_BATCH)
        _prune(alive, cutoff=cutoff)
    return sum(row[-1] for row in counts)


def _alive(by_key: dict[int, _Slot]) -> set[int]:
    """The keys that still exist (deleted with their account since: nothing to write)."""
    from keys.models import ApiKey

    return set(ApiKey.objects.filter(pk__in=list(by_key)).values_list("pk", flat=True))


def _add(rows: Sequence[tuple]) -> None:
    """``INSERT ... ON CONFLICT (...) DO UPDATE SET requests = requests + new``: one
    statement, atomic per row, on PostgreSQL and SQLite alike."""
    if not rows:
        return
    qn = connection.ops.quote_name
    table = qn(KeyRequestOutcome._meta.db_table)
    columns = [
        qn(c) for c in ("key_id", "account_id", "hour", "endpoint", "status", "kind", "counted")
    ]
    requests = qn("requests")
    values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s)"] * len(rows))
    unique = ", ".join(c for c in columns if c != qn("account_id"))
    sql = (
        f"INSERT INTO {table} ({', '.join(columns)}, {requests}) VALUES {values} "  # noqa: S608
        f"ON CONFLICT ({unique}) "
        f"DO UPDATE SET {requests} = {table}.{requests} + excluded.{requests}"
    )
    params: list[object] = []
    for key_id, account_id, hour, endpoint, status, kind, counted, n in rows:
        moment = connection.ops.adapt_datetimefield_value(hour)
        params += [key_id, account_id, moment, endpoint, status, kind, counted, n]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _prune(key_ids: Iterable[int], *, cutoff: datetime) -> None:
    """Forget the written keys' requests older than ``cutoff`` or beyond their newest
    ``KEEP_REQUESTS``: two statements for every key of the write (the newest found by
    a window function, on PostgreSQL and SQLite alike)."""
    keys = list(key_ids)
    if not keys:
        return
    KeyRequest.objects.filter(key_id__in=keys, at__lte=cutoff).delete()
    ranked = KeyRequest.objects.filter(key_id__in=keys).annotate(
        newest=Window(
            RowNumber(), partition_by=F("key_id"), order_by=[F("at").desc(), F("id").desc()]
        )
    )
    beyond = ranked.filter(newest__gt=KEEP_REQUESTS).values("id")
    KeyRequest.objects.filter(id__in=beyond).delete()


# --- Reading --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OutcomeRow:
    """Requests of one endpoint, status and kind over a range."""

    endpoint: str
    status: int
    kind: str
    counted: bool
    requests: int

    @property
    def outcome(self) -> str:
        return outcome_class(self.status, self.kind)


# The classes the dashboard and the API split requests into, in display order.
OUTCOME_CLASSES = ("2xx", "304", "4xx", "401", "429-quota", "429-burst", "5xx")


def outcome_class(status: int, kind: str) -> str:
    """``2xx``, ``304``, ``4xx`` (other client errors, by kind), ``401`` (refused:
    a disallowed address, a revoked or expired key), ``429-quota``, ``429-burst``,
    ``5xx`` (failed, given back), or ``3xx``/``1xx`` for anything else."""
    if status == 304:
        return "304"
    if status == 401:
        return "401"
    if status == 429:
        return "429-burst" if kind == "burst-limit-exceeded" else "429-quota"
    return f"{status // 100}xx"


def request_outcomes(
    *, account_id: int, start: datetime, end: datetime, key_id: int | None = None
) -> list[OutcomeRow]:
    """The account's (or one key's) requests in ``[start, end)`` (hours), by endpoint,
    status, kind and whether they counted; most requests first."""
    rows = KeyRequestOutcome.objects.filter(account_id=account_id, hour__gte=start, hour__lt=end)
    if key_id is not None:
        rows = rows.filter(key_id=key_id)
    grouped = (
        rows.values("endpoint", "status", "kind", "counted").annotate(n=Sum("requests")).order_by()
    )
    found = [
        OutcomeRow(r["endpoint"], r["status"], r["kind"], r["counted"], r["n"]) for r in grouped
    ]
    return sorted(found, key=lambda r: (-r.requests, r.endpoint, r.status, r.kind))


def recent_requests(
    *, account_id: int, key_id: int | None = None, now: datetime | None = None, limit: int = 100
) -> list[KeyRequest]:
    """The newest requests of the account (or one key) within ``KEEP_REQUEST_HOURS``,
    newest first, at most ``limit``."""
    cutoff = (now or timezone.now()) - timedelta(hours=KEEP_REQUEST_HOURS)
    found = KeyRequest.objects.filter(Q(account_id=account_id) & Q(at__gt=cutoff))
    if key_id is not None:
        found = found.filter(key_id=key_id)
    return list(found.order_by("-at", "-id")[:limit])
