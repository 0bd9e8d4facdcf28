"""The error reference: what each problem kind means to a client (issue 6, point 3).

One ``ProblemDoc`` per kind of ``core.problems.all_problem_types()``, keyed by
kind. ``core.openapi`` turns each into a tag of the OpenAPI schema named after the
kind, so a problem's ``doc_url`` ({BASE_URL}/docs#tag/<kind>) opens its section of
/docs. A new problem class without an entry here fails ``tests/openapi`` (and the schema
build), so the reference cannot fall behind the code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def _too_many(limit: int, window: int, retry_after: int) -> dict[str, dict[str, Any]]:
    """The members of both 429s (spec 7), with example values."""
    return {
        "limit": {
            "type": "integer",
            "minimum": 0,
            "description": "Requests allowed: the quota of the window, or the burst bucket size.",
            "example": limit,
        },
        "window": {
            "type": "integer",
            "minimum": 1,
            "description": "Seconds: the quota window's length, or how long an empty burst "
            "bucket takes to refill.",
            "example": window,
        },
        "retry_after": {
            "type": "integer",
            "minimum": 1,
            "description": "Whole seconds to wait before retrying; the same as Retry-After.",
            "example": retry_after,
        },
    }


def _errors(name: str, meaning: str, example: tuple[str, str]) -> dict[str, dict[str, Any]]:
    item = {
        "type": "object",
        "required": [name, "detail"],
        "additionalProperties": False,
        "properties": {
            name: {"type": "string", "description": meaning},
            "detail": {"type": "string", "description": "What is wrong with it."},
        },
    }
    sample = [{name: example[0], "detail": example[1]}]
    return {"errors": {"type": "array", "minItems": 1, "items": item, "example": sample}}


@dataclass(frozen=True, slots=True)
class ProblemDoc:
    """``when``: the conditions that produce the problem; ``action``: what a client should
    do about it (Markdown). ``members``: a JSON schema (with an ``example``) per extra
    body member the problem class declares (``Problem.members``). ``api``: False for
    kinds only the dashboard and the operator commands show (the HTTP API never answers
    with them)."""

    when: str
    action: str
    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    api: bool = True


PROBLEM_DOCS: dict[str, ProblemDoc] = {
    "unauthorized": ProblemDoc(
        when="The request carries no API key, or a key that is malformed, unknown, revoked "
        "or expired; or both key headers are sent with different keys; or `Authorization` "
        "uses a scheme other than `Bearer`. The body is the same for every reason, on "
        "purpose: it never says which. The response carries "
        '`WWW-Authenticate: Bearer realm="foodservice"`. Not counted against the quota.',
        action="Send the key as `X-API-Key: <key>` or `Authorization: Bearer <key>` (one "
        "is enough). Check in the dashboard that the key is still active; after a rotation "
        "only the new secret works. Retrying the same request unchanged never helps.",
    ),
    "enumeration-forbidden": ProblemDoc(
        when="Taster tier: `GET /v1/foods` without search text `q` (bare, or with only "
        "filters, sorting or paging; a blank `q` counts as none). Counted like any read.",
        action="Add `q`: on Taster, listing is search-first. Records by id "
        "(`/v1/foods/{id}`) need no search. Paid tiers may list without `q`.",
    ),
    "result-depth-exceeded": ProblemDoc(
        when="Taster tier: a page that starts past the first 1,000 matches of a search "
        "(e.g. `page_size=100&page=11`). A page straddling row 1,000 is cut at it and its "
        "`links.next` is null. Counted like any read.",
        action="Narrow the search instead of paging deeper: more words in `q`, filters such "
        "as `data_type` or `category`, or a sort that brings what you want first. Paid "
        "tiers page through every match.",
    ),
    "market-not-selected": ProblemDoc(
        when="Taster tier: any foods request (`/v1/foods`, `/v1/foods/{id}`, "
        "`/v1/suggest`, `/v1/categories`) before the account has chosen its market. "
        "Checked before anything else in the request.",
        action='Choose the market once, with `PUT /v1/market` and `{"market": "US"}` '
        "or in the dashboard; `GET /v1/market` lists the markets offered. It applies to "
        "every key of the account at once.",
    ),
    "quota-exceeded": ProblemDoc(
        when="The account has used its request quota for the window (all of its keys "
        "share one quota). Carries `Retry-After` and every RateLimit header. The refused "
        "request is not counted.",
        action="Wait `Retry-After` seconds, then retry. On Taster's rolling day that can "
        "be hours (allowance frees as each hour of use ages out); on a paid tier it is "
        "the renewal of the billing period. `GET /v1/usage` stays available meanwhile. "
        "Watch `RateLimit-Remaining` to slow down before reaching zero, or upgrade.",
        members=_too_many(250, 86400, 3600),
    ),
    "burst-limit-exceeded": ProblemDoc(
        when="Requests arrive faster than the account's burst bucket refills (each tier's "
        "sustained rate and burst are in [Tiers and limits](#section/Tiers-and-limits)). "
        "All keys of an account share the bucket. Carries only `Retry-After` (usually 1 "
        "or 2 seconds), not the RateLimit headers. The refused request is not counted.",
        action="Wait `Retry-After` seconds and retry; then spread requests out to the "
        'sustained rate (the `"burst"` entries of `RateLimit-Policy` and `RateLimit` '
        "give the bucket size and the tokens left). More keys do not help.",
        members=_too_many(10, 10, 1),
    ),
    "not-found": ProblemDoc(
        when="An unknown path, resource type or record id under `/v1`; on Taster also a "
        "food outside the account's market. A record read that is not found is counted "
        "like any read.",
        action="Check the path and the id: ids come from the `links` of list responses "
        "(`sr28-01001`, `fdc-…`, a nutrient number such as `203`, a category slug). Do not "
        "retry unchanged.",
    ),
    "method-not-allowed": ProblemDoc(
        when="The path exists but not for this method (e.g. `POST /v1/foods`). The "
        "`Allow` header lists the methods it supports. Not counted.",
        action="Use a method from `Allow`: the data endpoints are read with `GET` (and "
        "`HEAD`); the market is read with `GET` and set with `PUT`.",
    ),
    "malformed-request": ProblemDoc(
        when="The request cannot be read: a body that is not JSON, is nested too deep or "
        "is over 16 KiB, a `PUT /v1/market` body that is not a JSON object, or a request "
        "the server refuses outright (e.g. an unknown `Host`).",
        action='Fix the request: send a small JSON object such as `{"market": "US"}` '
        "with `Content-Type: application/json`.",
    ),
    "uri-too-long": ProblemDoc(
        when="The request line (method, path, query string, version) is over 8,190 bytes, "
        "the HTTP server's limit, so it is refused before the API reads it (a `q` of 200 "
        "characters percent-encoded as UTF-8 fits). Not counted.",
        action="Shorten the query string: `q` holds at most 200 characters anyway; follow "
        "`links.next` rather than building long URLs. Do not retry unchanged.",
    ),
    "header-fields-too-large": ProblemDoc(
        when="More than 100 header fields, or one over 8,190 bytes: refused by the HTTP "
        "server before the API reads it. Not counted.",
        action="Send fewer or shorter headers (the API reads only `X-API-Key` or "
        "`Authorization`, `If-None-Match` and `Accept`).",
    ),
    "invalid-parameter": ProblemDoc(
        when="A query parameter is invalid: unknown or repeated, `q` over 200 characters "
        "or without a letter or digit (only symbols, emoji or invisible characters), "
        "an unknown `sort`, `data_type` or filter value, a non-numeric or non-finite range, "
        "a `_min` above its `_max`, control characters, `page_size` outside 1 to 100, a page "
        "past the end or deeper than 10,000 rows, `page` together with `cursor`, a cursor "
        "that was tampered with or belongs to another search, a `market` the catalogue "
        "does not offer (any tier), or (Taster) a `market` other than the account's own. "
        "`errors[0].parameter` names the parameter. Counted like any read.",
        action="Fix the parameter named in `errors`. To page deep, follow `links.next` "
        "as it is rather than building page numbers.",
        members=_errors(
            "parameter", "The query parameter at fault.", ("page_size", "Must be from 1 to 100.")
        ),
    ),
    "validation-failed": ProblemDoc(
        when="The body is a JSON object but its content is invalid: in `PUT /v1/market`, "
        "`market` missing, not a string, not a two-letter code, or not offered. `errors` "
        "names each field.",
        action="Fix the fields named in `errors`; `GET /v1/market` lists the markets offered.",
        members=_errors(
            "field",
            "The body field at fault (`body` for the whole body).",
            ("market", "This field is required."),
        ),
    ),
    "invalid-ingredients": ProblemDoc(
        when="`POST /v1/analysis` with a body that is not a JSON object holding "
        "`ingredients`, a list of 1 to 100 strings of at most 200 characters each: the "
        "member missing, not a list, empty, over 100 lines, a line that is not a string, "
        "blank, over 200 characters or holding control characters (C0, C1 such as "
        "U+0085) or bidi control characters (U+202A-U+202E, U+2066-U+2069, U+200E, "
        "U+200F, U+061C), or another member beside it. `errors` names each field at "
        "fault (`ingredients[3]`). A line that is a string but cannot be understood, or "
        "weighs over 100 kg, is not an error: it comes back `unmatched` with its "
        "`reason`. Counted like any read.",
        action='Send `{"ingredients": ["2 tbsp butter", ...]}` with one line per '
        "ingredient; split a longer recipe into requests of 100 lines.",
        members=_errors(
            "field",
            "The body member at fault (`body` for the whole body, `ingredients[i]` for a line).",
            ("ingredients[0]", "Must be at most 200 characters."),
        ),
    ),
    "unsupported-media-type": ProblemDoc(
        when="A request body sent with a `Content-Type` other than `application/json`. "
        "Not counted: it is refused before the meter decides.",
        action="Send the body as JSON with `Content-Type: application/json`.",
    ),
    "forbidden": ProblemDoc(
        when="Reserved for permission failures other than the Taster limits above. No "
        "`/v1` endpoint answers with it today.",
        action="The key may not make this request; retrying does not help.",
    ),
    "service-unavailable": ProblemDoc(
        when="A part the service needs (the metering store or the database) is briefly "
        "unreachable. Carries `Retry-After: 5`. Nothing is counted.",
        action="Retry after `Retry-After` seconds, backing off if it persists.",
    ),
    "query-timeout": ProblemDoc(
        when="A search, suggestion or analysis ran past its time budget (the database's "
        "statement timeout for that kind of read, or the analysis's deadline) and was "
        "stopped, so it holds no worker. Seen under heavy load, or for a query that would "
        "rank a great share of the catalogue. Carries `Retry-After: 2`. Nothing is counted.",
        action="Retry after `Retry-After` seconds; if it persists, send a narrower query "
        "(more words, whole words, fewer lines in one analysis).",
    ),
    "internal-error": ProblemDoc(
        when="Something unexpected went wrong on the server. The detail is fixed and "
        "reveals nothing; the cause is in the server's log under the response's "
        "`X-Request-ID`.",
        action="Retry once later. If it persists, report it with the `X-Request-ID` "
        "response header.",
    ),
    "key-limit-reached": ProblemDoc(
        when="Dashboard and operator commands only: creating a sixth active key (an "
        "account holds at most 5). The HTTP API never answers with it.",
        action="Revoke a key you no longer use, then create the new one.",
        api=False,
    ),
    "key-not-active": ProblemDoc(
        when="Dashboard and operator commands only: rotating a key that is revoked or "
        "expired. The HTTP API never answers with it.",
        action="Create a new key instead; a revoked or expired key cannot come back.",
        api=False,
    ),
}
