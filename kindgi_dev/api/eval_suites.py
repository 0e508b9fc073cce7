"""`/v1/eval-suites` (0.1): publish, list, read, build from judgments, cases, tombstones."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from ..domain.errors import BadInput
from ..domain.paging import Page
from ..services import eval_suites
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .eval_suite_bodies import BuildJudgedSuiteBody, EvalKind, PublishEvalSuiteBody
from .judgments import JudgedSubject
from .routing import SHORT_WRITE_BYTES
from .wire import (
    Number,
    OpenJson,
    OpenModel,
    OpenObject,
    PageQuery,
    VersionsQuery,
    WireModel,
    WirePage,
)


class EvalSuiteAnswer(WireModel):
    """One version of an eval suite."""

    model_config = ConfigDict(title="EvalSuite")

    id: str
    tenant_id: str
    project_id: str | None = None
    version: str
    kind: EvalKind
    description: str | None = None
    spec: OpenObject
    unregistered_at: str | None = None


class EvalSuiteCollectionPage(WirePage[EvalSuiteAnswer]):
    """A page of eval suites."""


class PublishEvalSuiteResult(WireModel):
    """The published version."""

    suite_id: str
    version: str


class BuildJudgedSuiteResult(WireModel):
    """The built version, its case count, and whether more runs matched than it holds."""

    suite_id: str
    version: str
    kind: Literal["judged"]
    case_count: int
    truncated: bool


class RestrictedWeights(WireModel):
    """The weights of the verdicts recorded while their class was restricted."""

    yes_weight: Number
    total_weight: Number
    judgment_ids: list[str] | None = None


class ItemReason(WireModel):
    """A reason given, with its verdict."""

    verdict: Literal["yes", "no"]
    reason: str
    judge_class_id: str | None = None
    restricted: Literal[True] | None = None


class JudgedItemSummary(WireModel):
    """One corrected item of a case: counts, class-weighted counts, ids and reasons."""

    key: str
    pointer: str | None = None
    rank: int | None = None
    yes: int
    no: int
    yes_weight: Number
    total_weight: Number
    restricted: RestrictedWeights | None = None
    judgment_ids: list[str] | None = None
    reasons: list[ItemReason]


class JudgedEvalCase(OpenModel):
    """A frozen copy of a judged run with its items' verdicts summed up."""

    case_id: str
    subject: JudgedSubject
    input: OpenJson = None
    context: OpenObject | None = None
    output: OpenJson = None
    items: list[JudgedItemSummary]
    corrections: list[OpenObject] | None = None
    erased: Literal[True] | None = None


class JudgedEvalCaseCollectionPage(WirePage[JudgedEvalCase]):
    """A page of a version's cases, in stored order."""


class UnregisterEvalSuiteResult(WireModel):
    """The tombstoned version."""

    suite_id: str
    version: str
    unregistered: Literal[True]


class ReinstateEvalSuiteVersionResult(WireModel):
    """The reinstated version, and whether it was tombstoned."""

    suite_id: str
    version: str
    was_tombstoned: bool


class SuiteListQuery(WireModel):
    """Filters and paging of `evalSuites.list`."""

    limit: int | None = None
    cursor: str | None = None
    kind: EvalKind | None = None
    name: str | None = None
    scope_kind: Literal["tenant", "org", "project"] | None = None
    scope_id: str | None = Field(default=None, min_length=1)
    inherit: bool = True
    include_retired: bool = False


class SuiteGetQuery(WireModel):
    """The project the version must be able to run in."""

    project_id: str | None = None


async def list_suites(call: Call[NoBody, SuiteListQuery]) -> Page[eval_suites.EvalSuite]:
    """A page of suites; `scopeKind=project` filters on the project."""
    q = call.query
    if (q.scope_kind in ("org", "project")) != (q.scope_id is not None):
        raise BadInput(
            "scopeId is required with scopeKind org or project, and not allowed otherwise.",
            code="scope-invalid",
        )
    page = eval_suites.list_suites(
        call.ctx,
        kind=q.kind,
        name=q.name,
        project_id=q.scope_id if q.scope_kind == "project" else None,
        include_retired=q.include_retired,
        limit=q.limit,
        cursor=q.cursor,
    )
    return page


def publish(call: Call[PublishEvalSuiteBody, NoQuery]) -> eval_suites.Published:
    """Publish a version (201), in a worker thread: a body of 1,000 cases is a large one."""
    body = call.body
    new = eval_suites.NewVersion(
        id=body.id,
        project_id=body.project_id,
        version=body.version,
        kind=body.kind,
        spec=body.spec,
        description=body.description,
        tenant_id=body.tenant_id,
    )
    return eval_suites.publish(call.ctx, new)


async def get(call: Call[NoBody, SuiteGetQuery]) -> eval_suites.EvalSuite:
    """The latest active version."""
    return eval_suites.get(call.ctx, call.path["suiteId"], call.query.project_id)


async def list_versions(call: Call[NoBody, VersionsQuery]) -> Page[eval_suites.EvalSuite]:
    """A page of a suite's versions."""
    q = call.query
    page = eval_suites.list_versions(
        call.ctx,
        call.path["suiteId"],
        include_tombstoned=q.include_tombstoned,
        limit=q.limit,
        cursor=q.cursor,
    )
    return page


async def get_version(call: Call[NoBody, NoQuery]) -> eval_suites.EvalSuite:
    """One version."""
    return eval_suites.get_version(call.ctx, call.path["suiteId"], call.path["version"])


def build(call: Call[BuildJudgedSuiteBody, NoQuery]) -> eval_suites.Built:
    """Build a judged version (201), in a worker thread: it reads up to 1,000 runs."""
    return eval_suites.build_from_judgments(call.ctx, call.path["suiteId"], selection_of(call.body))


FILTERS = {"agent_version", "since", "until", "judge_class_ids", "min_judgments", "segments"}
"""The build body's fields that select runs, kept in the version's spec as given."""


def selection_of(body: BuildJudgedSuiteBody) -> eval_suites.JudgedSelection:
    """The runs a build body selects, for the service (the console builds through it too)."""
    return eval_suites.JudgedSelection(
        version=body.version,
        project_id=body.project_id,
        agent_id=body.agent_id,
        agent_version=body.agent_version,
        flow_id=body.flow_id,
        since=body.since,
        until=body.until,
        judge_class_ids=body.judge_class_ids or [],
        min_judgments=body.min_judgments,
        segments=[segment.model_dump() for segment in body.segments or []],
        description=body.description,
        given_filters=body.model_dump(
            by_alias=True, exclude_none=True, include=FILTERS, mode="json"
        ),
    )


async def list_cases(call: Call[NoBody, PageQuery]) -> object:
    """A page of a version's cases."""
    q, path = call.query, call.path
    page = eval_suites.list_cases(
        call.ctx, path["suiteId"], path["version"], limit=q.limit, cursor=q.cursor
    )
    return page


def unregister(call: Call[NoBody, NoQuery]) -> eval_suites.Tombstoned:
    """Tombstone a version."""
    return eval_suites.unregister(call.ctx, call.path["suiteId"], call.path["version"])


def reinstate(call: Call[NoBody, NoQuery]) -> eval_suites.SuiteReinstated:
    """Reinstate a version."""
    return eval_suites.reinstate(call.ctx, call.path["suiteId"], call.path["version"])


_SUITE = "/v1/eval-suites/{suiteId}"
_VERSION = f"{_SUITE}/versions/{{version}}"
ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/eval-suites",
        "evalSuites.list",
        list_suites,
        "The latest version of each eval suite, by id.",
        query=SuiteListQuery,
        response=EvalSuiteCollectionPage,
        errors=(400, 401),
    ),
    Endpoint(
        "POST",
        "/v1/eval-suites",
        "evalSuites.publish",
        publish,
        "Publish an eval suite version.",
        body=PublishEvalSuiteBody,
        response=PublishEvalSuiteResult,
        status=201,
        errors=(400, 401, 404, 409, 413),
    ),
    Endpoint(
        "GET",
        _SUITE,
        "evalSuites.get",
        get,
        "An eval suite's latest active version.",
        query=SuiteGetQuery,
        response=EvalSuiteAnswer,
        errors=(400, 401, 404),
    ),
    Endpoint(
        "GET",
        f"{_SUITE}/versions",
        "evalSuites.versions.list",
        list_versions,
        "An eval suite's versions, ascending semver.",
        query=VersionsQuery,
        response=EvalSuiteCollectionPage,
        errors=(400, 401, 404),
    ),
    Endpoint(
        "GET",
        _VERSION,
        "evalSuites.versions.get",
        get_version,
        "One version of an eval suite.",
        response=EvalSuiteAnswer,
        errors=(401, 404),
    ),
    Endpoint(
        "POST",
        f"{_SUITE}/versions/from-judgments",
        "evalSuites.buildFromJudgments",
        build,
        "Build a judged version from an agent's corrected runs (≤ 1000 cases).",
        body=BuildJudgedSuiteBody,
        response=BuildJudgedSuiteResult,
        status=201,
        errors=(400, 401, 403, 404, 409, 413),
    ),
    Endpoint(
        "GET",
        f"{_VERSION}/cases",
        "evalSuites.listCases",
        list_cases,
        "A version's cases, in stored order.",
        query=PageQuery,
        response=JudgedEvalCaseCollectionPage,
        errors=(401, 404),
    ),
    Endpoint(
        "POST",
        f"{_VERSION}/unregister",
        "evalSuites.versions.unregister",
        unregister,
        "Tombstone a version (kept and readable).",
        response=UnregisterEvalSuiteResult,
        errors=(400, 401, 404, 409),
        inline_below=SHORT_WRITE_BYTES,
    ),
    Endpoint(
        "POST",
        f"{_VERSION}/reinstate",
        "evalSuites.reinstateVersion",
        reinstate,
        "Reinstate a tombstoned version (idempotent).",
        response=ReinstateEvalSuiteVersionResult,
        errors=(400, 401, 404, 409),
        inline_below=SHORT_WRITE_BYTES,
    ),
]
