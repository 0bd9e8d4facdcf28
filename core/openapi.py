"""Generic OpenAPI helpers (issue 6; split from ``foodservice/openapi/schema.py`` in issue 25):
what every app's ``schema.py`` uses to describe its operations, and what the
document's postprocessing uses to describe problems.

drf-spectacular builds the operations from the per-view descriptions in each app's
``schema.py`` (``OpenApiViewExtension``s, loaded by the apps' ``ready()``) with
``operation``, ``described``, ``component`` and the header helpers here. The problem
helpers give:

- the generic ``Problem`` (spec 2.5) and, for each problem kind an operation answers
  with, ``<Kind>Problem``: ``allOf`` the base plus the kind's pinned ``type``,
  ``status`` and ``doc_url`` and its extra members (issue 14.5: generated clients get
  one base class; the ``title`` is text, never pinned, so rewording it breaks no
  client; no component goes unused);
- one tag per problem kind, *named after the kind*, so Redoc's anchor for it is
  ``#tag/<kind>``: exactly the fragment of every problem's ``doc_url``.

The product's document (tiers, endpoint tags, the markets enum) is put together by
``foodservice.openapi.schema.postprocess``. This module imports no app.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.template.loader import render_to_string
from drf_spectacular.extensions import OpenApiViewExtension
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)

from core.problem_docs import PROBLEM_DOCS, ProblemDoc
from core.problems import PROBLEM_CONTENT_TYPE, Problem, UriTooLong

# --- components registered by the apps' schema modules ------------------------------
_COMPONENTS: dict[str, dict[str, Any]] = {}


def component(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """Registers ``schema`` as ``#/components/schemas/<name>`` (added by ``postprocess``)
    and returns a ``$ref`` to it."""
    _COMPONENTS[name] = schema
    return ref(name)


def components() -> dict[str, dict[str, Any]]:
    """Every component registered so far by ``component`` (name -> schema)."""
    return _COMPONENTS


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def closed_object(properties: dict[str, Any], description: str = "") -> dict[str, Any]:
    """A closed object: every property required, nothing else allowed (a response
    body is ``closed_object({"data": ...})``)."""
    schema = {
        "type": "object",
        "required": list(properties),
        "additionalProperties": False,
        "properties": properties,
    }
    return schema | ({"description": description} if description else {})


# --- problems -----------------------------------------------------------------------
def problem_doc(kind: str) -> ProblemDoc:
    """The error reference entry of ``kind``. Raises ``KeyError`` naming an undocumented
    kind, so a new problem class cannot ship without its section of /docs."""
    try:
        return PROBLEM_DOCS[kind]
    except KeyError:
        raise KeyError(f"problem kind {kind!r} has no entry in PROBLEM_DOCS") from None


def problem_component_name(cls: type[Problem]) -> str:
    """``internal-error`` -> ``InternalErrorProblem`` (by kind: ``all_problem_types()``
    may name a kind by its base class)."""
    return "".join(word.capitalize() for word in cls.kind.split("-")) + "Problem"


def problem_schema(cls: type[Problem]) -> dict[str, Any]:
    """The exact body of one problem kind, ``Problem.body()`` and nothing else: the
    generic ``Problem`` narrowed by pinning ``type``, ``status`` and the ``doc_url``
    fragment (the ``title`` is an example: its wording may change) and requiring the
    kind's extra members. The narrowing part lists every member of the body, so its
    ``additionalProperties: false`` refuses only what the kind never sends."""
    members = problem_doc(cls.kind).members
    kind: dict[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "enum": [cls.type_uri()]},
            "title": {"type": "string", "example": cls.title},
            "status": {"type": "integer", "enum": [cls.status_code]},
            "detail": {"type": "string", "example": cls.default_text()},
            "doc_url": {
                "type": "string",
                "format": "uri",
                "pattern": f"/docs#tag/{cls.kind}$",
                "example": cls.doc_url(),
            },
            **{name: members[name] for name in cls.members},
        },
    }
    if cls.members:
        kind["required"] = list(cls.members)
    return {
        "title": f"{cls.status_code} {cls.kind}",
        "description": f"The `{cls.kind}` problem: see [{cls.kind}](#tag/{cls.kind}).",
        "allOf": [ref("Problem"), kind],
    }


def generic_problem_schema() -> dict[str, Any]:
    """The problem object of spec 2.5, whatever its kind."""
    return {
        "type": "object",
        "description": "Every error is this object, served as `application/problem+json` "
        "(RFC 9457). `doc_url` links to the section of this reference about its kind.",
        "required": ["type", "title", "status", "detail", "doc_url"],
        "properties": {
            "type": {"type": "string", "pattern": "^/problems/[a-z-]+$"},
            "title": {"type": "string"},
            "status": {"type": "integer", "minimum": 400, "maximum": 599},
            "detail": {"type": "string"},
            "doc_url": {"type": "string", "format": "uri"},
            "limit": _member("limit"),
            "window": _member("window"),
            "retry_after": _member("retry_after"),
        },
    }


def _member(name: str) -> dict[str, Any]:
    schema = {k: v for k, v in PROBLEM_DOCS["quota-exceeded"].members[name].items()}
    return schema | {"description": f"429 problems only. {schema['description']}"}


def problem_responses(*classes: type[Problem]) -> dict[tuple[int, str], OpenApiResponse]:
    """The ``extend_schema(responses=...)`` entries for problems an operation can answer
    with: one response per status, its body one of the kinds' exact schemas."""
    by_status: dict[int, list[type[Problem]]] = {}
    for cls in classes:
        by_status.setdefault(cls.status_code, []).append(cls)
    out = {}
    for status_code, group in sorted(by_status.items()):
        refs = [ref(problem_component_name(cls)) for cls in group]
        body = refs[0] if len(refs) == 1 else {"oneOf": refs}
        kinds = ", ".join(f"[{cls.kind}](#tag/{cls.kind})" for cls in group)
        out[(status_code, PROBLEM_CONTENT_TYPE)] = OpenApiResponse(
            response=body, description=f"Problem: {kinds}."
        )
    return out


# --- response headers ---------------------------------------------------------------
def _integer(minimum: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum}


RATELIMIT_HEADERS: dict[str, tuple[dict[str, Any], str]] = {
    "RateLimit-Limit": (_integer(0), "The account's quota for the window."),
    "RateLimit-Remaining": (_integer(0), "Requests left in the window, across all keys."),
    "RateLimit-Reset": (
        _integer(0),
        "Seconds until allowance next frees up: the top of the next hour on a rolling "
        "day (Taster), the renewal on a billing period; with nothing left, when a request "
        "is admitted again (on the quota 429: the same as Retry-After).",
    ),
    "X-RateLimit-Reset": (_integer(0), "The moment of RateLimit-Reset, as Unix time."),
    "RateLimit-Policy": (
        {"type": "string", "pattern": r'^"quota";q=\d+;w=\d+(, "burst";q=\d+;w=\d+)?$'},
        'IETF draft form: `"quota";q=<quota>;w=<window seconds>`, then, unless '
        'unthrottled, `"burst";q=<bucket size>;w=<seconds to refill>`.',
    ),
    "RateLimit": (
        {"type": "string", "pattern": r'^"quota";r=\d+;t=\d+(, "burst";r=\d+;t=\d+)?$'},
        "IETF draft form: each policy's remaining `r` and seconds `t`. With `r=0`, `t` is "
        "the seconds until that policy admits a request again (on the quota 429 it equals "
        "Retry-After); with `r>0`, the seconds until it resets (quota: as RateLimit-Reset; "
        "burst: until the bucket is full).",
    ),
}
# spec 8.4: on every metered response. They are set after the meter admitted the
# request, so a 404 for a path no view serves and the burst 429 lack them.
RATELIMIT_REQUIRED_ON = [200, 304, 400, 403]
RATELIMIT_OPTIONAL_ON = [404, 429]


def _header(
    name: str, schema: dict[str, Any], description: str, on: list[int], *, required: bool
) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        type=schema,
        location=OpenApiParameter.HEADER,
        response=on,
        required=required,
        description=description,
    )


def ratelimit_headers() -> list[OpenApiParameter]:
    """The RateLimit headers of a metered operation's responses."""
    out = []
    for name, (schema, description) in RATELIMIT_HEADERS.items():
        out.append(_header(name, schema, description, RATELIMIT_REQUIRED_ON, required=True))
        optional = f"{description} Present on 404 record reads and on the quota 429 only."
        out.append(_header(name, schema, optional, RATELIMIT_OPTIONAL_ON, required=False))
    return out


def common_headers() -> list[OpenApiParameter]:
    """Headers of every authenticated operation: the 401's challenge, Retry-After."""
    return [
        _header(
            "WWW-Authenticate",
            {"type": "string", "enum": ['Bearer realm="foodservice"']},
            "The authentication challenge of the 401.",
            [401],
            required=True,
        ),
        _header(
            "Retry-After",
            _integer(1),
            "Whole seconds to wait before retrying (never 0).",
            [429, 503],
            required=True,
        ),
    ]


def conditional_headers() -> list[OpenApiParameter]:
    """``If-None-Match`` in, ``ETag`` and caching headers out (issue 3, point 4)."""
    return [
        OpenApiParameter(
            "If-None-Match",
            str,
            OpenApiParameter.HEADER,
            description="The `ETag` of the copy you hold (or a list of tags, or `*`): "
            "a 304 with no body answers when it is still current. Counted like a 200.",
        ),
        _header(
            "ETag",
            {"type": "string", "pattern": '^"[0-9a-f]+"$'},
            "Strong tag of the representation; send it back as If-None-Match.",
            [200, 304],
            required=True,
        ),
        _header(
            "Cache-Control",
            {"type": "string", "enum": ["private, max-age=60"]},
            "Reuse the response for a minute without asking, then revalidate.",
            [200, 304],
            required=True,
        ),
    ]


def uri_too_long() -> dict[tuple[int, str], OpenApiResponse]:
    """The HTTP server's own answer to a request line over its limit (gunicorn: 8,190
    bytes): a problem object like every other answer (foodservice.http.gunicorn_workers)."""
    return problem_responses(UriTooLong)


def not_modified() -> dict[int, OpenApiResponse]:
    return {
        304: OpenApiResponse(
            description="Not Modified: the `If-None-Match` tag is current; no body. "
            "Metered like a 200."
        )
    }


# --- operations ----------------------------------------------------------------------
def operation(
    *,
    operation_id: str,
    tag: str,
    summary: str,
    description: str,
    body: dict[str, Any],
    kinds: tuple[type[Problem], ...],
    parameters: list[OpenApiParameter] | None = None,
    responses: dict | None = None,
    **extra: Any,
) -> Any:
    """``extend_schema`` for one operation: a 200 with ``body``, a problem response per
    status of ``kinds``, the 401 and Retry-After headers, plus ``parameters`` and other
    ``responses`` (``extra`` goes to ``extend_schema`` as is, e.g. ``request``)."""
    return extend_schema(
        operation_id=operation_id,
        tags=[tag],
        summary=summary,
        description=description,
        parameters=[*(parameters or []), *common_headers()],
        responses={
            200: OpenApiResponse(response=body, description="OK"),
            **problem_responses(*kinds),
            **(responses or {}),
        },
        **extra,
    )


def described(view: type, **methods: Any) -> type:
    """What an ``OpenApiViewExtension.view_replacement`` returns: a subclass of ``view``
    carrying an ``operation(...)`` per method name (the view itself is left alone)."""
    return extend_schema_view(**methods)(type(view.__name__, (view,), {}))


def view_schema(target: str, **methods: Callable[[], Any]) -> type[OpenApiViewExtension]:
    """The ``OpenApiViewExtension`` describing the view at ``target`` (a dotted path):
    ``methods`` maps a method name to a function returning its ``operation(...)``, called
    each time the document is built (so the settings an operation reads are the live
    ones). Defining the class registers it with drf-spectacular; an app's ``schema.py``
    keeps it as a module attribute (``UsageSchema = view_schema(...)``)."""

    def view_replacement(self: OpenApiViewExtension) -> type:
        return described(self.target_class, **{name: build() for name, build in methods.items()})

    return type(
        f"{target.rsplit('.', 1)[-1]}Schema",
        (OpenApiViewExtension,),
        {"target_class": target, "view_replacement": view_replacement},
    )


# --- error reference ----------------------------------------------------------------
def error_tag(cls: type[Problem]) -> dict[str, Any]:
    """The section of /docs that a problem's ``doc_url`` opens: ``#tag/<kind>``."""
    doc = problem_doc(cls.kind)
    context = {
        "p": problem_facts(cls),
        "doc": doc,
        "members": cls.members,
        "example_json": json.dumps(_example(cls, doc), indent=2, ensure_ascii=False),
    }
    return {
        "name": cls.kind,
        "x-displayName": f"{cls.status_code} {cls.kind}",
        "x-traitTag": True,
        "description": render_to_string("docs/problem.md", context),
    }


def problem_facts(cls: type[Problem]) -> dict[str, Any]:
    """A problem class as template data (templates would call a class)."""
    return {"kind": cls.kind, "status": cls.status_code, "title": cls.title, "type": cls.type_uri()}


def _example(cls: type[Problem], doc: ProblemDoc) -> dict[str, Any]:
    body = {
        "type": cls.type_uri(),
        "title": cls.title,
        "status": cls.status_code,
        "detail": cls.default_text(),
        "doc_url": cls.doc_url(),
    }
    return body | {name: doc.members[name]["example"] for name in cls.members}
