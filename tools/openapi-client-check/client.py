"""Issue 42.6: what a Python client generated from the served schema does.

``make lint-openapi-client`` generates ``var/pyclient/foodservice_client`` from
``var/openapi.json`` with openapi-python-client (pinned in pyproject's dev extra), then
runs this script. Each call below goes through the generated function of its operation,
with the parameters docs/api-guide.md documents, to an httpx transport that records the
request and answers with a problem object: a parameter the schema lost is a TypeError
here, a query string the client builds wrongly fails an assertion, and every documented
400 must parse into a model whose ``type_`` and ``doc_url`` a caller can read.
No server, no database: the answers are the problem shape the schema documents.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "var" / "pyclient"))

from foodservice_client import AuthenticatedClient  # noqa: E402
from foodservice_client.api.foods import barcodes_read, foods_list, foods_read  # noqa: E402
from foodservice_client.api.records import categories_list, nutrients_list  # noqa: E402

PROBLEMS = {
    400: {
        "type": "/problems/invalid-parameter",
        "title": "Invalid parameter",
        "status": 400,
        "detail": "q: is malformed",
        "doc_url": "http://127.0.0.1:8000/docs#tag/invalid-parameter",
        "errors": [{"parameter": "q", "detail": "is malformed"}],
    },
    404: {
        "type": "/problems/not-found",
        "title": "Not found",
        "status": 404,
        "detail": "No food with this id.",
        "doc_url": "http://127.0.0.1:8000/docs#tag/not-found",
    },
}
sent: list[httpx.Request] = []
status = [400]  # the status the next answer has: one each operation documents


def answer(request: httpx.Request) -> httpx.Response:
    sent.append(request)
    problem = PROBLEMS[status[0]]
    return httpx.Response(
        status[0], json=problem, headers={"Content-Type": "application/problem+json"}
    )


client = AuthenticatedClient(
    base_url="http://127.0.0.1:8000",
    token="svc_sk_live_example",  # noqa: S106 (the guide's placeholder, no key)
    prefix="",
    auth_header_name="X-API-Key",
    httpx_args={"transport": httpx.MockTransport(answer)},
)


def check(
    name: str,
    call: Callable[[], Any],
    path: str,
    query: dict[str, list[str]],
    answered: int = 400,
) -> None:
    """``call`` sends one request to ``path`` with ``query`` and reads the problem of
    status ``answered`` it is given."""
    status[0] = answered
    response = call()
    request = sent[-1]
    url = urlsplit(str(request.url))
    assert url.path == path, (name, url.path)
    assert parse_qs(url.query) == query, (name, parse_qs(url.query))
    assert request.headers["X-API-Key"] == "svc_sk_live_example", name
    problem = response.parsed
    kind = PROBLEMS[answered]["type"]
    assert problem.type_ == kind, (name, problem)
    assert problem.doc_url.endswith("#tag/" + kind.rsplit("/", 1)[1]), (name, problem)


check(
    "search",
    lambda: foods_list.sync_detailed(client=client, q="butter", page_size=5),
    "/v1/foods",
    {"q": ["butter"], "page_size": ["5"]},
)
check(
    "batch with a projection (issue 42.3-4): arrays go as repeated names, which the API "
    "takes as it takes comma lists (core/params.py)",
    lambda: foods_list.sync_detailed(
        client=client,
        ids=["sr28-01001", "sr28-01002"],
        fields=["name", "nutrients_per_100g.protein_g"],
        nutrients=["203"],
    ),
    "/v1/foods",
    {
        "ids": ["sr28-01001", "sr28-01002"],
        "fields": ["name", "nutrients_per_100g.protein_g"],
        "nutrients": ["203"],
    },
)
check(
    "projected record (issue 42.4)",
    lambda: foods_read.sync_detailed("sr28-01001", client=client, fields=["name"]),
    "/v1/foods/sr28-01001",
    {"fields": ["name"]},
    answered=400,
)
check(
    "record",
    lambda: foods_read.sync_detailed("sr28-01001", client=client),
    "/v1/foods/sr28-01001",
    {},
    answered=404,
)
check(
    "barcode (issue 42.2)",
    lambda: barcodes_read.sync_detailed("009800895007", client=client),
    "/v1/barcodes/009800895007",
    {},
)
check(
    "nutrients (issue 42.5)",
    lambda: nutrients_list.sync_detailed(client=client, page_size=100),
    "/v1/nutrients",
    {"page_size": ["100"]},
)
check(
    "categories (issue 42.5)",
    lambda: categories_list.sync_detailed(client=client, market="IN", page=2),
    "/v1/categories",
    {"market": ["IN"], "page": ["2"]},
)
print(f"generated Python client: {len(sent)} requests built and their problems read")
