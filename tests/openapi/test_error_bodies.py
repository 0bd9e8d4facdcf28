"""Every error an operation documents is a problem object (issue 24.5): a generated
client's error union then holds problem types only, so ``error.type`` type-checks under
``tsc --strict`` (openapi-typescript + openapi-fetch). The equivalent check on the
served schema: every 4xx/5xx response has exactly one body, ``application/problem+json``,
whose schema is a ``<Kind>Problem`` component (or a ``oneOf`` of them) built on
``Problem``."""

from __future__ import annotations

from typing import Any

PROBLEM = "application/problem+json"


def problem_refs(schema: dict[str, Any]) -> list[str]:
    return [s.get("$ref", "") for s in schema.get("oneOf", [schema])]


def test_every_documented_error_body_is_a_problem(openapi):
    components = openapi["components"]["schemas"]
    checked = 0
    for path, item in openapi["paths"].items():
        for method, operation in item.items():
            if method not in {"get", "put", "post", "patch", "delete", "head"}:
                continue
            for status, response in operation["responses"].items():
                if int(status) < 400:
                    continue
                where = f"{method.upper()} {path} {status}"
                assert set(response.get("content", {})) == {PROBLEM}, where
                refs = problem_refs(response["content"][PROBLEM]["schema"])
                for ref in refs:
                    name = ref.rsplit("/", 1)[-1]
                    assert ref.startswith("#/components/schemas/") and name.endswith("Problem")
                    assert {"$ref": "#/components/schemas/Problem"} in components[name].get(
                        "allOf", []
                    ), where
                checked += 1
    assert checked > 20


def test_the_414_is_documented_as_the_uri_too_long_problem(openapi):
    response = openapi["paths"]["/v1/foods"]["get"]["responses"]["414"]
    assert problem_refs(response["content"][PROBLEM]["schema"]) == [
        "#/components/schemas/UriTooLongProblem"
    ]
    assert "4,094" not in str(openapi)
