"""The `/v1/test-sets` registry: published entries, their versions and a version's cases."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from starlette.responses import Response

from ..domain.paging import Page
from ..domain.semver import SEMVER_PATTERN
from ..domain.test_sets import ENTRY_ID_PATTERN, RegistryEntry
from ..services import test_set_registry
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .responses import json_response
from .routing import SHORT_WRITE_BYTES, shape
from .wire import JsonObject, PageQuery, WireModel, WirePage

RegistryKind = Literal[
    "accuracy", "pairwise", "regression", "human-review", "benchmark", "custom", "corrections"
]


class TestSetEntry(WireModel):
    """A registry entry: an agent's test set is one from its first frozen version."""

    id: str
    tenant_id: str
    version: str
    kind: RegistryKind
    description: str | None = None
    spec: JsonObject


class PublishTestSetBody(WireModel):
    """A registry entry to publish: `spec` is kept as opaque JSON."""

    id: str = Field(min_length=1, json_schema_extra={"pattern": ENTRY_ID_PATTERN})
    tenant_id: str = Field(min_length=1)
    version: str = Field(min_length=1, json_schema_extra={"pattern": SEMVER_PATTERN})
    kind: RegistryKind
    description: str | None = None
    spec: JsonObject


class TestSetPage(WirePage[TestSetEntry]):
    """A page of registry entries, by id."""


class RegistryQuery(WireModel):
    """`kind` filter and paging of the registry list."""

    kind: RegistryKind | None = None
    limit: int | None = None
    cursor: str | None = None


class RegistryCasePage(WirePage[dict[str, object]]):
    """A version's cases: `TestCase`s of a frozen set, `JudgedEvalCase`s of a built suite."""


async def list_entries(call: Call[NoBody, RegistryQuery]) -> Page[RegistryEntry]:
    """A page of registry entries."""
    q = call.query
    return test_set_registry.list_entries(call.ctx, q.kind, limit=q.limit, cursor=q.cursor)


def publish(call: Call[PublishTestSetBody, NoQuery]) -> Response:
    """201 for a new version, 200 when the same content was published before."""
    body = call.body
    entry = RegistryEntry(
        id=body.id,
        tenant_id=body.tenant_id,
        version=body.version,
        kind=body.kind,
        spec=body.spec,
        description=body.description,
    )
    kept, created = test_set_registry.publish(call.ctx, entry)
    return json_response(shape(TestSetEntry, kept), 201 if created else 200)


async def get_entry(call: Call[NoBody, NoQuery]) -> RegistryEntry:
    """One test set by id."""
    return test_set_registry.get_entry(call.ctx, call.path["testSetId"])


async def list_versions(call: Call[NoBody, PageQuery]) -> Page[RegistryEntry]:
    """A page of a test set's versions."""
    q = call.query
    page = test_set_registry.entry_versions(
        call.ctx, call.path["testSetId"], limit=q.limit, cursor=q.cursor
    )
    return page


async def version_cases(call: Call[NoBody, PageQuery]) -> object:
    """A page of one version's cases."""
    q, path = call.query, call.path
    page = test_set_registry.entry_cases(
        call.ctx, path["testSetId"], path["version"], limit=q.limit, cursor=q.cursor
    )
    return page


ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/test-sets",
        "testSets.list",
        list_entries,
        "Registry entries, latest version each; `kind=corrections` adds the agents' "
        "test sets and the suites built before.",
        query=RegistryQuery,
        response=TestSetPage,
        errors=(400, 401),
    ),
    Endpoint(
        "POST",
        "/v1/test-sets",
        "testSets.publish",
        publish,
        "Publish a registry entry's version (201; the same content again: 200).",
        body=PublishTestSetBody,
        response=TestSetEntry,
        status=201,
        also=(200,),
        errors=(400, 401, 409, 413),
        inline_below=SHORT_WRITE_BYTES,
    ),
    Endpoint(
        "GET",
        "/v1/test-sets/{testSetId}",
        "testSets.get",
        get_entry,
        "A test set: a registry entry, an agent's test set, or a suite built before.",
        response=TestSetEntry,
        errors=(401, 404),
    ),
    Endpoint(
        "GET",
        "/v1/test-sets/{testSetId}/versions",
        "testSets.versions.list",
        list_versions,
        "A test set's versions, oldest first.",
        query=PageQuery,
        response=TestSetPage,
        errors=(400, 401, 404),
    ),
    Endpoint(
        "GET",
        "/v1/test-sets/{testSetId}/versions/{version}/cases",
        "testSets.listCases",
        version_cases,
        "A version's cases as they were when it was frozen or built.",
        query=PageQuery,
        response=RegistryCasePage,
        errors=(400, 401, 404),
    ),
]
