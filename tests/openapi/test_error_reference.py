"""The error reference (issue 6, point 3; contract test (a)): every problem kind the
code can emit has a section of /docs, and every ``doc_url`` points at it."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

import pytest

from core.openapi import problem_component_name, problem_doc
from core.problem_docs import PROBLEM_DOCS
from core.problems import all_problem_types
from foodservice.openapi.schema import ENDPOINT_TAGS

KINDS = [cls.kind for cls in all_problem_types()]


def redoc_tag_anchor(name: str) -> str:
    """Redoc's anchor for a tag: ``tag/`` + the name slugified (a lowercase name of
    letters, digits and hyphens slugifies to itself)."""
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name), f"{name!r} would be slugified"
    return f"tag/{name}"


def test_every_kind_the_code_can_emit_has_a_doc_entry_and_no_entry_is_stale() -> None:
    assert set(PROBLEM_DOCS) == set(KINDS)


def test_an_undocumented_kind_is_refused_by_name() -> None:
    with pytest.raises(KeyError, match="no-such-kind"):
        problem_doc("no-such-kind")


@pytest.mark.parametrize("cls", all_problem_types(), ids=KINDS)
def test_every_member_a_problem_declares_has_a_schema_with_an_example(cls: Any) -> None:
    members = PROBLEM_DOCS[cls.kind].members
    assert set(members) == set(cls.members)
    assert all("example" in schema for schema in members.values())


@pytest.mark.parametrize("cls", all_problem_types(), ids=KINDS)
def test_doc_url_fragment_opens_the_tag_named_after_the_kind(
    cls: Any, openapi: dict[str, Any]
) -> None:
    tags = {tag["name"]: tag for tag in openapi["tags"]}
    tag = tags[cls.kind]
    assert urlsplit(cls.doc_url()).fragment == redoc_tag_anchor(tag["name"])
    assert tag["x-traitTag"] is True  # a section of its own, without operations
    assert cls.type_uri() in tag["description"]
    assert PROBLEM_DOCS[cls.kind].action.split(".")[0] in tag["description"]


def test_the_errors_group_lists_every_kind_once(openapi: dict[str, Any]) -> None:
    (errors,) = [g for g in openapi["x-tagGroups"] if g["name"] == "Errors"]
    assert sorted(errors["tags"]) == sorted(KINDS)
    grouped = [name for group in openapi["x-tagGroups"] for name in group["tags"]]
    assert sorted(grouped) == sorted(tag["name"] for tag in openapi["tags"])


def test_endpoint_tags_never_collide_with_a_kind() -> None:
    assert not set(ENDPOINT_TAGS) & set(KINDS)


def used_refs(openapi: dict[str, Any]) -> set[str]:
    """Every component name a ``$ref`` anywhere in the document points at."""
    return set(re.findall(r'"#/components/schemas/([^"]+)"', json.dumps(openapi)))


@pytest.mark.parametrize("cls", all_problem_types(), ids=KINDS)
def test_each_kind_an_operation_answers_has_an_exact_body_schema_on_the_base(
    cls: Any, openapi: dict[str, Any]
) -> None:
    """Issue 14.5: allOf the common Problem; type and status pinned, the title not."""
    name = problem_component_name(cls)
    schemas = openapi["components"]["schemas"]
    if name not in used_refs(openapi):
        assert name not in schemas  # no unused component
        return
    base, kind = schemas[name]["allOf"]
    assert base == {"$ref": "#/components/schemas/Problem"}
    assert kind["properties"]["type"]["enum"] == [cls.type_uri()]
    assert kind["properties"]["status"]["enum"] == [cls.status_code]
    assert "enum" not in kind["properties"]["title"]
    assert kind["properties"]["title"]["example"] == cls.title
    assert re.search(kind["properties"]["doc_url"]["pattern"], cls.doc_url())
    assert kind["additionalProperties"] is False
    assert set(kind.get("required", [])) == set(cls.members)
    assert set(kind["properties"]) == {"type", "title", "status", "detail", "doc_url", *cls.members}


def test_no_component_is_unused_and_the_base_is_shared(openapi: dict[str, Any]) -> None:
    schemas = openapi["components"]["schemas"]
    assert set(schemas) <= used_refs(openapi)
    problem_schemas = [name for name in schemas if name.endswith("Problem") and name != "Problem"]
    assert len(problem_schemas) >= 10
    for name in problem_schemas:
        assert schemas[name]["allOf"][0] == {"$ref": "#/components/schemas/Problem"}


def test_info_has_a_license_and_a_contact(openapi: dict[str, Any]) -> None:
    assert openapi["info"]["license"]["name"] and openapi["info"]["license"]["url"]
    assert openapi["info"]["contact"]["url"].endswith("/docs")


def test_the_intro_links_every_kind(openapi: dict[str, Any]) -> None:
    for kind in KINDS:
        assert f"(#tag/{kind})" in openapi["info"]["description"]
