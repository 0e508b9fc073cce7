"""An agent's test set (`/v1/agents/{agentId}/test-set…`) and the `/v1/test-sets` registry."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable
from typing import Any, Literal

from pydantic import Field, field_validator
from starlette.responses import Response, StreamingResponse

from ..domain.errors import KindgiError
from ..domain.paging import Page
from ..remote import OnProgress, Progress
from ..services import test_set_pulls, test_sets
from ..services.test_set_pulls import PulledVersion
from .errors import wire_details
from .limits import MAX_ITEMS, MAX_KEY
from .responses import json_response
from .routing import Call, Endpoint
from .wire import OpenModel, WireModel

log = logging.getLogger("kindgi_dev.api")

Verdict = Literal["right", "wrong"]
CaseKind = Literal["correction", "hand"]
RegistryKind = Literal[
    "accuracy", "pairwise", "regression", "human-review", "benchmark", "custom", "corrections"
]


class CaseItem(WireModel):
    """An item a case expects: its key, where it is, its rank, and right or wrong."""

    key: str = Field(min_length=1, max_length=MAX_KEY)
    pointer: str | None = Field(default=None, max_length=MAX_KEY)
    rank: int | None = Field(default=None, ge=0)
    verdict: Verdict
    reason: str | None = Field(default=None, max_length=4000)


class CaseCall(WireModel):
    """A tool the run should have called, with the arguments it should have had."""

    tool_id: str = Field(min_length=1)
    args: dict[str, Any] | None = None


class CaseDecisions(WireModel):
    """What the run should have done: right, or wrong with what it should (not) call."""

    verdict: Verdict
    should_call: list[CaseCall] | None = None
    must_not_call: list[str] | None = None


class CaseAnswer(WireModel):
    """What the answer should have said: right, or wrong with `shouldSay` and/or `why`."""

    verdict: Verdict
    should_say: str | None = Field(default=None, max_length=4000)
    why: str | None = Field(default=None, max_length=4000)


class AddCaseBody(WireModel):
    """A hand case: a correction's body on one of the agent's finished runs."""

    run_id: str = Field(min_length=1, max_length=MAX_KEY)
    items: list[CaseItem] = Field(default_factory=list, max_length=MAX_ITEMS)
    decisions: CaseDecisions | None = None
    answer: CaseAnswer | None = None


class RetireCaseBody(WireModel):
    """Why the case no longer applies."""

    reason: str = Field(min_length=1, max_length=4000)


class CasePrincipal(WireModel):
    """Who added or retired a case."""

    kind: str
    id: str


class CaseRetirement(WireModel):
    """When, by whom and why a case was retired."""

    reason: str
    by: CasePrincipal
    at: str


class CaseExpect(WireModel):
    """A part for each part the correction gave a verdict on."""

    items: list[CaseItem] | None = None
    decisions: CaseDecisions | None = None
    answer: CaseAnswer | None = None


class TestCase(WireModel):
    """A case of an agent's test set (a correction's has the correction's id)."""

    id: str
    kind: CaseKind
    project_id: str
    run_id: str
    made_on: str
    expect: CaseExpect
    expert: bool
    added_by: CasePrincipal
    added_at: str
    updated_at: str
    retired: CaseRetirement | None = None
    judge_class_id: str | None = None
    """The corrector group (judge class) the correction was made under, when there was one."""


class TestCasePage(WireModel):
    """A page of cases, newest first."""

    data: list[TestCase]
    has_more: bool
    next_cursor: str | None = None


class CaseCounts(WireModel):
    """How many cases the set has, and how many were retired."""

    active: int
    retired: int


class FrozenVersion(WireModel):
    """A frozen version of a test set: its cases as they were when a test run started."""

    test_set_id: str
    version: str


class AgentTestSet(WireModel):
    """An agent's test set in one project, computed when read."""

    id: str
    agent_id: str
    project_id: str
    cases: CaseCounts
    frozen_version: FrozenVersion | None = None


class ProjectQuery(WireModel):
    """The project (default: the default project)."""

    project_id: str | None = Field(default=None, min_length=1)


def _both_kinds() -> list[CaseKind]:
    """The default of `kind`: cases of both kinds."""
    return ["correction", "hand"]


class CaseQuery(ProjectQuery):
    """Filters and paging of the cases list."""

    include: Literal["retired"] | None = None
    kind: list[CaseKind] = Field(default_factory=_both_kinds)
    limit: int | None = None
    cursor: str | None = None

    @field_validator("kind", mode="before")
    @classmethod
    def _split(cls, value: Any) -> list[str]:
        values = value if isinstance(value, list) else [value]
        return [part for v in values for part in str(v).split(",") if part]


class TestSetEntry(WireModel):
    """A registry entry: an agent's test set is one from its first frozen version."""

    id: str
    tenant_id: str
    version: str
    kind: RegistryKind
    description: str | None = None
    spec: dict[str, Any]


class PublishTestSetBody(WireModel):
    """A registry entry to publish: `spec` is kept as opaque JSON."""

    id: str = Field(min_length=1)
    tenant_id: str = Field(min_length=1)
    version: str = Field(min_length=1)
    kind: RegistryKind
    description: str | None = None
    spec: dict[str, Any]


class TestSetPage(WireModel):
    """A page of registry entries, by id."""

    data: list[TestSetEntry]
    has_more: bool
    next_cursor: str | None = None


class RegistryQuery(WireModel):
    """`kind` filter and paging of the registry list."""

    kind: RegistryKind | None = None
    limit: int | None = None
    cursor: str | None = None


class PageQuery(WireModel):
    """Paging."""

    limit: int | None = None
    cursor: str | None = None


class VersionCasePage(OpenModel):
    """A version's cases: `TestCase`s of a frozen set, `JudgedEvalCase`s of a built suite."""

    data: list[dict[str, Any]]
    has_more: bool
    next_cursor: str | None = None


class PullBody(WireModel):
    """Where to pull a version from, with the remote's token (used once, kept nowhere)."""

    source: str = Field(alias="from", min_length=1, max_length=2000)
    token: str | None = Field(default=None, max_length=8000)
    insecure: bool = False


class PullSource(WireModel):
    """Where a pulled version came from, and when."""

    url: str
    pulled_at: str


class PulledTestSetVersion(WireModel):
    """A pulled version, read-only here; `pulled` is false when it was here already."""

    test_set_id: str
    version: str
    case_count: int
    source: PullSource
    pulled: bool


def _pulling(call: Call[PullBody, Any], on_progress: OnProgress | None) -> Awaitable[PulledVersion]:
    body, path = call.body, call.path
    return test_set_pulls.pull(
        call.ctx,
        path["testSetId"],
        path["version"],
        body.source,
        body.token,
        insecure=body.insecure,
        on_progress=on_progress,
    )


def _pulled_wire(found: PulledVersion) -> dict[str, Any]:
    return PulledTestSetVersion(
        test_set_id=found.test_set_id,
        version=found.version,
        case_count=found.case_count,
        source=PullSource(url=found.source.url, pulled_at=found.source.pulled_at),
        pulled=found.pulled,
    ).wire()


async def pull(call: Call[PullBody, Any]) -> Response:
    """201 when the version was stored, 200 when the same content was here already; asked
    with `Accept: application/x-ndjson`, progress lines first, then the answer's line."""
    if "application/x-ndjson" in call.request.headers.get("accept", ""):
        return StreamingResponse(_pull_lines(call), media_type="application/x-ndjson")
    found = await _pulling(call, None)
    return json_response(_pulled_wire(found), 201 if found.pulled else 200)


def _line(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


async def _pull_lines(call: Call[PullBody, Any]) -> AsyncIterator[bytes]:
    """`{"progress": {cases, total, bytes}}` per page read, then `{"status", "result"}` or
    `{"status", "error"}` (the envelope's error)."""
    steps: asyncio.Queue[Progress | None] = asyncio.Queue()
    task = asyncio.ensure_future(_pulling(call, steps.put_nowait))
    task.add_done_callback(lambda _: steps.put_nowait(None))
    while (step := await steps.get()) is not None:
        yield _line({"progress": {"cases": step.cases, "total": step.total, "bytes": step.bytes}})
    try:
        found = task.result()
    except KindgiError as error:
        envelope = {
            "code": error.wire_code,
            "message": error.message,
            **({"details": wire_details(error)} if error.details else {}),
        }
        yield _line({"status": error.status, "error": envelope})
        return
    except Exception:
        log.exception("pulling %s failed", call.path["testSetId"])
        failed = {
            "code": "internal-server-error",
            "message": "kindgi dev failed on this pull; its log has the details.",
        }
        yield _line({"status": 500, "error": failed})
        return
    yield _line({"status": 201 if found.pulled else 200, "result": _pulled_wire(found)})


async def get_set(call: Call[Any, ProjectQuery]) -> dict[str, Any]:
    """The set's counts and newest frozen version."""
    return test_sets.get(call.ctx, call.path["agentId"], call.query.project_id)


async def list_cases(call: Call[Any, CaseQuery]) -> Page[Any]:
    """A page of the set's cases."""
    q = call.query
    page = test_sets.list_cases(
        call.ctx,
        call.path["agentId"],
        q.project_id,
        include_retired=q.include == "retired",
        kinds=tuple(q.kind),
        limit=q.limit,
        cursor=q.cursor,
    )
    return page


async def add_case(call: Call[AddCaseBody, Any]) -> dict[str, Any]:
    """Add a hand case (201)."""
    return test_sets.add_case(call.ctx, call.path["agentId"], call.body.wire())


async def retire_case(call: Call[RetireCaseBody, Any]) -> dict[str, Any]:
    """Retire a case with the body's reason."""
    path = call.path
    return test_sets.retire_case(call.ctx, path["agentId"], path["caseId"], call.body.reason)


async def freeze(call: Call[Any, ProjectQuery]) -> dict[str, Any]:
    """Freeze the active cases as the next version (201)."""
    return test_sets.freeze(call.ctx, call.path["agentId"], call.query.project_id)


async def list_entries(call: Call[Any, RegistryQuery]) -> Page[Any]:
    """A page of registry entries."""
    q = call.query
    return test_sets.list_entries(call.ctx, q.kind, limit=q.limit, cursor=q.cursor)


async def publish(call: Call[PublishTestSetBody, Any]) -> Response:
    """201 for a new version, 200 when the same content was published before."""
    entry, created = test_sets.publish(call.ctx, call.body.wire())
    return json_response(entry, 201 if created else 200)


async def get_entry(call: Call[Any, Any]) -> dict[str, Any]:
    """One test set by id."""
    return test_sets.get_entry(call.ctx, call.path["testSetId"])


async def list_versions(call: Call[Any, PageQuery]) -> Page[Any]:
    """A page of a test set's versions."""
    q = call.query
    page = test_sets.entry_versions(
        call.ctx, call.path["testSetId"], limit=q.limit, cursor=q.cursor
    )
    return page


async def version_cases(call: Call[Any, PageQuery]) -> Page[Any]:
    """A page of one version's cases."""
    q, path = call.query, call.path
    page = test_sets.entry_cases(
        call.ctx, path["testSetId"], path["version"], limit=q.limit, cursor=q.cursor
    )
    return page


_SET = "/v1/agents/{agentId}/test-set"
ENDPOINTS = [
    Endpoint(
        "GET",
        _SET,
        "agents.testSet.get",
        get_set,
        "An agent's test set in a project: case counts and its newest frozen version.",
        query=ProjectQuery,
        response=AgentTestSet,
        errors=(400, 401, 404),
    ),
    Endpoint(
        "GET",
        f"{_SET}/cases",
        "agents.testSet.listCases",
        list_cases,
        "The set's cases, newest first (`include=retired`, `kind=correction,hand`).",
        query=CaseQuery,
        response=TestCasePage,
        errors=(400, 401, 404),
    ),
    Endpoint(
        "POST",
        f"{_SET}/cases",
        "agents.testSet.addCase",
        add_case,
        "Add a case by hand on one of the agent's finished runs.",
        body=AddCaseBody,
        response=TestCase,
        status=201,
        errors=(400, 401, 404, 409, 413),
    ),
    Endpoint(
        "POST",
        f"{_SET}/cases/{{caseId}}/retire",
        "agents.testSet.retireCase",
        retire_case,
        "Retire a case with a reason (kept; no un-retire).",
        body=RetireCaseBody,
        response=TestCase,
        errors=(400, 401, 404, 409),
    ),
    Endpoint(
        "POST",
        f"{_SET}/freeze",
        "agents.testSet.freeze",
        freeze,
        "Freeze the set's active cases as its next version.",
        query=ProjectQuery,
        response=FrozenVersion,
        status=201,
        errors=(400, 401, 404),
    ),
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
        response=VersionCasePage,
        errors=(400, 401, 404),
    ),
    Endpoint(
        "POST",
        "/v1/test-sets/{testSetId}/versions/{version}/pull",
        "testSets.pull",
        pull,
        "Pull a version from another Kindgi runtime (`from`, its `token`): stored read-only "
        "as the same id and version (201; the same content again: 200).",
        body=PullBody,
        response=PulledTestSetVersion,
        status=201,
        also=(200,),
        errors=(400, 401, 409, 413, 502),
    ),
]
