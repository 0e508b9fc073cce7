"""`GET …/versions/{version}/export` and `POST /v1/test-sets/import`: a frozen version as a
file you commit, and that file stored back read-only (docs/move-test-sets.md)."""

from __future__ import annotations

from pydantic import Field
from starlette.responses import Response, StreamingResponse

from ..domain.json import JSONObject
from ..domain.semver import SEMVER_PATTERN
from ..domain.test_set_files import FORMAT, ID, KIND
from ..services import test_set_files
from ..services.test_set_pulls import PulledVersion
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .responses import json_response
from .routing import shape
from .test_set_pulls import PullSource
from .wire import JsonObject, WireModel

MAX_FILE_BYTES = 64 * 1024 * 1024
"""The largest file an import takes: each case carries a copy of its run (about 10 kB)."""


class NamedVersions(WireModel):
    """An agent or flow a file's cases ran, with the versions they ran."""

    id: str
    versions: list[str]


class TestSetFileBody(WireModel):
    """A test-set version's file: the envelope's fields and its cases, keys sorted."""

    agents: list[NamedVersions]
    case_count: int = Field(ge=0)
    cases: list[JsonObject]
    flows: list[NamedVersions]
    format: str = Field(max_length=100, json_schema_extra={"const": FORMAT})
    id: str = Field(max_length=300, json_schema_extra={"pattern": f"^{ID.pattern}$"})
    kind: str = Field(max_length=100, json_schema_extra={"const": KIND})
    sha256: str = Field(max_length=100)
    version: str = Field(max_length=100, json_schema_extra={"pattern": SEMVER_PATTERN})


class ImportQuery(WireModel):
    """The name the file is imported as (its path in the repository), kept as its source."""

    source: str | None = Field(default=None, min_length=1, max_length=500)


class ImportedTestSetVersion(WireModel):
    """An imported version, read-only here; `imported` is false when it was here already."""

    test_set_id: str
    version: str
    case_count: int
    sha256: str
    source: PullSource
    imported: bool


def export(call: Call[NoBody, NoQuery]) -> Response:
    """The version's file, written a case per line as it is read (in a worker thread: the
    envelope reads every case once before the first line)."""
    test_set_id, version = call.path["testSetId"], call.path["version"]
    lines = test_set_files.export(call.ctx, test_set_id, version)
    name = f"{test_set_id}-{version}.json"
    return StreamingResponse(
        (line.encode() for line in lines),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def import_file(call: Call[TestSetFileBody, ImportQuery]) -> Response:
    """201 when the version was stored, 200 when the same content was here already."""
    body = call.body
    data = {
        "format": body.format,
        "kind": body.kind,
        "id": body.id,
        "version": body.version,
        "caseCount": body.case_count,
        "sha256": body.sha256,
        "cases": body.cases,
    }
    found = test_set_files.import_file(call.ctx, data, call.query.source)
    return json_response(shape(ImportedTestSetVersion, _imported(found, body.sha256)),
                         201 if found.pulled else 200)  # fmt: skip


def _imported(found: PulledVersion, sha256: str) -> JSONObject:
    return {
        "test_set_id": found.test_set_id,
        "version": found.version,
        "case_count": found.case_count,
        "sha256": sha256,
        "source": {"url": found.source.url, "pulled_at": found.source.pulled_at},
        "imported": found.pulled,
    }


ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/test-sets/{testSetId}/versions/{version}/export",
        "testSets.export",
        export,
        "A corrections test-set version as a deterministic file to commit: keys sorted, "
        "one case per line, the sha256 of its cases.",
        response=TestSetFileBody,
        errors=(400, 401, 404),
    ),
    Endpoint(
        "POST",
        "/v1/test-sets/import",
        "testSets.import",
        import_file,
        "Store a test-set file read-only, as a pull (201; the same content again: 200; other "
        "content under its id and version: 409; a sha256 that isn't its cases': 400).",
        body=TestSetFileBody,
        query=ImportQuery,
        response=ImportedTestSetVersion,
        status=201,
        also=(200,),
        errors=(400, 401, 409, 413),
        max_body=MAX_FILE_BYTES,
    ),
]
