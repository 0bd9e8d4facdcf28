"""Many foods in one call (issue 42.3): ``GET /v1/foods?ids=a,b,c``.

A batch is a set of record reads, answered as one:

- **Records as stored.** Each record is the stored rendering of ``GET /v1/foods/{id}``
  (its ``data`` object), spliced into the list as bytes: nothing is parsed or encoded
  again unless a projection (``fields``, ``nutrients``) is asked. Records this worker
  holds in memory cost nothing; the rest are read in one query (and kept in memory).
- **Scoped like a record read.** A food the caller may not see (a Taster's other
  markets) is answered like one that does not exist: listed in ``meta.missing``, as a
  single read of it is a 404 that does not say it exists elsewhere.
- **Counted like record reads.** One unit a distinct id asked, found or missing, as
  that many single reads would be (a 404 counts): known from the query string alone,
  before any read, so a batch the quota or the burst bucket refuses is refused whole
  and costs the service nothing (``ids_cost``, ``MeteredAPIView.meter_units``).
- **Cacheable.** The ETag is derived from the members' ETags (each the hash of its
  record's bytes), the missing ids and the projection: the same batch of unchanged
  records, the same tag; a 304 counts as the batch's units, as a 304 does today.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence

from catalogue.delivery import rendering
from catalogue.delivery.projection import RECORD_FIELDS, Projection, parse_projection
from core.params import list_items
from core.problems import InvalidParameter

MAX_IDS = 50
# What may come with ids: a projection. Anything else (q, filters, sort, paging,
# market) describes a search, not a set of records: a 400 naming it.
BATCH_PARAMETERS = frozenset({"ids", "fields", "nutrients"})
# A public id: "<source>-<source id>" (catalogue.models.Food.public_id, 40 at most).
PUBLIC_ID = re.compile(r"[a-z0-9]+-[A-Za-z0-9._-]{1,38}")


def parse_ids(params: Mapping[str, Sequence[str]]) -> list[str]:
    """The distinct ids asked for, in the order first given. ``InvalidParameter`` naming
    ``ids`` for none, more than ``MAX_IDS`` distinct ids or one
    that is not a public id; naming any other parameter given with ``ids`` but
    ``fields`` and ``nutrients``."""
    for name in params:
        if name not in BATCH_PARAMETERS:
            raise InvalidParameter(
                name,
                "Not with ids: a batch takes only fields and nutrients (search without ids).",
            )
    ids = list(dict.fromkeys(list_items(params["ids"])))  # ids=a,b or ids=a&ids=b
    if not ids:
        raise InvalidParameter("ids", "Give at least one food id.")
    if len(ids) > MAX_IDS:
        raise InvalidParameter("ids", f"At most {MAX_IDS} distinct ids a call; {len(ids)} given.")
    bad = [i for i in ids if not PUBLIC_ID.fullmatch(i)]
    if bad:
        raise InvalidParameter("ids", f"Not a food id: {bad[0][:60]!r} (ids look like sr28-01001).")
    return ids


def ids_cost(params: Mapping[str, Sequence[str]]) -> int:
    """What a batch costs (one unit a distinct id asked), from the query string alone;
    1 when it is not a well-formed batch (its 400 is counted as one request)."""
    try:
        return len(parse_ids(params))
    except InvalidParameter:
        return 1


def batch_projection(params: Mapping[str, Sequence[str]]) -> Projection:
    return parse_projection(params, shape=RECORD_FIELDS)


def food_batch(*, ids: list[str], market: str | None, projection: Projection) -> tuple[bytes, str]:
    """The body and ETag of ``GET /v1/foods?ids=...`` for a caller who sees ``market``:
    ``{"data": [record, ...], "meta": {"ids": n, "count": n, "missing": [...]}}``,
    records in the order asked."""
    found = rendering.food_records(public_ids=ids, market=market)
    records: list[bytes] = []
    tags: list[str] = []
    missing: list[str] = []
    for public_id in ids:
        hit = found.get(public_id)
        if hit is None:
            missing.append(public_id)
            continue
        body, etag = hit
        if not projection.none:
            body = projection.bytes_of(body, wrapped=True)
        # The stored record is {"data":{...}}: its object is the bytes between.
        records.append(body[len(b'{"data":') : -1])
        tags.append(etag)
    meta = {"ids": len(ids), "count": len(records), "missing": missing, "market": market}
    out = b"".join((b'{"data":[', b",".join(records), b'],"meta":', rendering.dumps(meta), b"}"))
    digest = hashlib.sha256()
    for part in (*tags, "|", *missing, "|", market or "*", "|", projection.key()):
        digest.update(part.encode())
        digest.update(b"\x00")
    return out, '"' + digest.hexdigest()[:32] + '"'
