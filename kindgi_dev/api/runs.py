"""`/v1/runs`: start an agent turn, list, get (with what a suspended run waits for),
cancel, journal and stream; `resume` answers 422 as the 0.1.10 client says."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Literal

from pydantic import ConfigDict, Field, field_validator
from pydantic.config import JsonDict
from starlette.responses import Response, StreamingResponse

from ..domain.errors import Unprocessable, ValidationFailed
from ..domain.numbers import whole_number
from ..domain.paging import Page
from ..domain.segments import Segment
from ..domain.text import NOT_BLANK_PATTERN
from ..services import flow_runs, run_waits, runs
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .responses import json_response
from .routing import shape
from .wire import (
    JSON_OBJECT,
    JsonAny,
    OpenJson,
    OpenModel,
    OpenObject,
    WireModel,
    WirePage,
    WireTime,
    WireUuid,
)

RunStatus = Literal["pending", "running", "suspended", "completed", "failed", "cancelled"]


class ScopeSegment(WireModel):
    """One level of a segment path."""

    key: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$")
    value: str = Field(min_length=1, max_length=256)

    def record(self) -> Segment:
        """The level as the service takes it."""
        return Segment(self.key, self.value)


class StartRunOptions(WireModel):
    """`wait` (default true) and `dryRun`."""

    dry_run: bool | None = None
    wait: bool | None = None


_TURN_INPUT: JsonDict = {
    "type": "object",
    "required": ["userMessage"],
    "properties": {
        "userMessage": {"type": "string", "pattern": NOT_BLANK_PATTERN},
        "parameters": {"anyOf": [{"type": "null"}, JSON_OBJECT]},
    },
}
"""An agent turn's input: a message that isn't blank, and the agent's parameters."""
_NAMED: JsonDict = {"type": "string", "minLength": 1}
JSON_VALUE_REF: JsonDict = {"$ref": "#/components/schemas/JsonValue"}


class StartRunBody(WireModel):
    """The body of `runs.start`: one of `agent` / `flow`, and its input."""

    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {
                    "required": ["agent", "input"],
                    "properties": {"agent": _NAMED, "flow": {"type": "null"}, "input": _TURN_INPUT},
                },
                {
                    "required": ["flow", "input"],
                    "properties": {"flow": _NAMED, "agent": {"type": "null"},
                                   "input": {"not": {"type": "null"}}},
                },
            ]
        }
    )  # fmt: skip

    agent: str | None = Field(default=None, min_length=1)
    agent_version: str | None = None
    flow: str | None = Field(default=None, min_length=1)
    flow_version: str | None = None
    project_id: str | None = None
    segments: list[ScopeSegment] | None = Field(default=None, max_length=8)
    input: JsonAny = None
    options: StartRunOptions | None = None


class RunFailureAnswer(WireModel):
    """Why a run failed."""

    model_config = ConfigDict(title="RunFailure")

    code: str
    message: str


class RunAgentAnswer(WireModel):
    """The agent turn a run is."""

    model_config = ConfigDict(title="RunAgent")

    id: str
    version: str
    conversation_id: str
    via: str


class WaitingToolAnswer(WireModel):
    """The tool call an approval holds (never its arguments)."""

    id: str
    version: str
    call_id: str


class WaitingApprovalAnswer(WireModel):
    """An approval the run waits for."""

    approval_id: str
    status: str
    required_role: str
    title: str | None = None
    created_at: str
    expires_at: str | None = None
    subject_kind: str
    tool: WaitingToolAnswer | None = None


class WaitingForAnswer(WireModel):
    """What a suspended run waits for: approvals still to decide, and the rest."""

    approvals: list[WaitingApprovalAnswer]
    other: list[OpenObject]


class RunAnswer(WireModel):
    """A run as the contract shapes it (`output` is the agent turn's result)."""

    model_config = ConfigDict(title="Run")

    id: str
    tenant_id: str
    project_id: str | None = None
    flow_id: str
    flow_version: str
    status: RunStatus
    dry_run: bool
    created_at: str
    updated_at: str
    completed_at: str | None = None
    failure_message: str | None = None
    failure: RunFailureAnswer | None = None
    output: OpenJson = None
    agent: RunAgentAnswer | None = None
    started_by: Literal["person", "key", "schedule", "webhook", "event"] | None = None
    replay_of: str | None = None
    eval_run_id: str | None = None
    versions: dict[str, dict[str, str]] | None = None
    segments: list[ScopeSegment] | None = None
    waiting_for: WaitingForAnswer | None = None


class RunPage(WirePage[RunAnswer]):
    """A page of runs."""


class RunQuery(WireModel):
    """Filters of `runs.list`."""

    limit: int | None = None
    cursor: str | None = None
    agent_id: str | None = Field(default=None, min_length=1)
    agent_version: str | None = Field(default=None, min_length=1)
    flow_id: str | None = Field(default=None, min_length=1)
    flow_version: str | None = Field(default=None, min_length=1)
    eval_run_id: str | None = Field(default=None, min_length=1)
    replays: Literal["exclude", "include", "only"] = "exclude"
    include_dry_runs: bool = False
    include: Literal["output"] | None = None
    status: list[RunStatus] = Field(default_factory=list)
    created_after: WireTime | None = None
    created_before: WireTime | None = None
    scope_kind: Literal["tenant", "org", "project"] | None = None
    scope_id: str | None = Field(default=None, min_length=1)
    parent_run_id: WireUuid | None = None
    top_level: bool | None = None
    trigger_id: WireUuid | None = None

    @field_validator("status", mode="before")
    @classmethod
    def _split(cls, value: object) -> list[str]:
        values = value if isinstance(value, list) else [value]
        return [part for v in values for part in str(v).split(",") if part]


class ResumeBody(OpenModel):
    """`runs.resume`'s body, never read: the route always answers 422."""

    model_config = ConfigDict(json_schema_extra={"additionalProperties": JSON_VALUE_REF})


class JournalQuery(WireModel):
    """Paging of `runs.journal`; without `limit`, the whole journal."""

    limit: int | None = None
    cursor: str | None = None
    since: int | None = Field(default=None, ge=0)
    """Only entries after this sequence number; none: from the first."""


class JournalEntryAnswer(WireModel):
    """One entry of a run's journal; `payload` is what the step kept, as it kept it."""

    model_config = ConfigDict(title="JournalEntry")

    sequence: int
    kind: str
    node_id: str | None = None
    payload: OpenJson = None
    timestamp: str


class JournalPage(WirePage[JournalEntryAnswer]):
    """A page of journal entries."""


async def start(call: Call[StartRunBody, NoQuery]) -> Response:
    body = call.body
    if (body.agent is None) == (body.flow is None):
        raise ValidationFailed("agent", "give exactly one of agent or flow")
    options = body.options or StartRunOptions()
    segments = None if body.segments is None else [s.record() for s in body.segments]
    dry_run, wait = bool(options.dry_run), options.wait is not False
    if body.flow is not None:
        if body.input is None:
            raise ValidationFailed("input", "is required: the flow's run input")
        run, status = await flow_runs.start(
            call.ctx, body.flow, flow_version=body.flow_version, project_id=body.project_id,
            input=body.input, segments=segments, dry_run=dry_run, wait=wait,
        )  # fmt: skip
    else:
        run, status = await runs.start(
            call.ctx, str(body.agent), agent_version=body.agent_version,
            project_id=body.project_id, input=body.input, segments=segments, dry_run=dry_run,
            wait=wait,
        )  # fmt: skip
    return json_response(shape(RunAnswer, run), status)


async def list_runs(call: Call[NoBody, RunQuery]) -> Page[runs.Run]:
    q = call.query
    if q.parent_run_id or q.trigger_id:
        return Page([], False)  # kindgi dev has no child runs or triggers
    filters = {
        "agent_id": q.agent_id,
        "agent_version": q.agent_version,
        "flow_id": q.flow_id,
        "flow_version": q.flow_version,
        "eval_run_id": q.eval_run_id,
        "created_after": q.created_after,
        "created_before": q.created_before,
        "project_id": q.scope_id if q.scope_kind == "project" else None,
        "dry_run": None if q.include_dry_runs else 0,
    }
    return runs.list_page(
        call.ctx,
        limit=q.limit,
        cursor=q.cursor,
        filters=filters,
        statuses=q.status,
        replays=q.replays,
        with_output=q.include == "output",
    )


async def get(call: Call[NoBody, NoQuery]) -> runs.Run:
    found = runs.get(call.ctx, call.path["runId"])
    return replace(found, waiting_for=run_waits.waiting_for(call.ctx, found.id))


async def resume(call: Call[ResumeBody, NoQuery]) -> None:
    raise Unprocessable(
        "Runs aren't resumed by hand: a run waiting for an approval goes on when a reviewer "
        "decides it (POST /v1/approvals/{approvalId}/complete).",
        code="run-resume-not-supported",
        runId=call.path["runId"],
    )


async def cancel(call: Call[NoBody, NoQuery]) -> runs.Run:
    return await runs.cancel(call.ctx, call.path["runId"])


async def journal(call: Call[NoBody, JournalQuery]) -> Page[runs.JournalEntry]:
    q = call.query
    since = -1 if q.since is None else q.since
    return runs.journal(call.ctx, call.path["runId"], since=since, limit=q.limit, cursor=q.cursor)


WIRE_KINDS = {
    "run.started": "run.started",
    "step.started": "run.step-started",
    "step.completed": "run.step-completed",
    "step.failed": "run.step-failed",
    "run.completed": "run.completed",
    "run.failed": "run.failed",
    "run.cancelled": "run.cancelled",
    "wait.suspended": "run.wait-suspended",
    "wait.resumed": "run.wait-resumed",
}


async def stream(call: Call[NoBody, NoQuery]) -> Response:
    """SSE: the journal so far after `Last-Event-Id`, then live, until a terminal entry."""
    ctx, run_id = call.ctx, call.path["runId"]
    run = runs.get_record(ctx, run_id)
    last = call.request.headers.get("last-event-id", "")
    given = whole_number(last.rsplit(":", 1)[-1])  # malformed: from the start
    since = -1 if given is None else given

    async def frames() -> AsyncIterator[bytes]:
        nonlocal since
        deadline = asyncio.get_running_loop().time() + 300
        while asyncio.get_running_loop().time() < deadline:
            for entry in runs.journal(ctx, run_id, since=since, limit=None, cursor=None).items:
                since = entry.sequence if entry.sequence is not None else since
                kind = WIRE_KINDS.get(entry.kind)
                if kind is None:
                    continue
                event = {
                    "eventId": f"{run_id}:{since}",
                    "runId": run_id,
                    "tenantId": run.tenant_id,
                    "timestamp": entry.timestamp,
                    "kind": kind,
                    "sequence": since,
                    "payload": entry.payload,
                }
                yield (
                    f"id: {run_id}:{since}\nevent: {kind}\ndata: {json.dumps(event)}\n\n"
                ).encode()
                if kind in ("run.completed", "run.failed", "run.cancelled"):
                    return
            await asyncio.sleep(0.1)

    return StreamingResponse(
        frames(),
        media_type="text/event-stream; charset=utf-8",
        headers={"Cache-Control": "no-cache"},
    )


ENDPOINTS = [
    Endpoint(
        "POST",
        "/v1/runs",
        "runs.start",
        start,
        "Start an agent turn.",
        body=StartRunBody,
        response=RunAnswer,
        status=201,
        errors=(400, 401, 404, 409, 413, 422),
    ),
    Endpoint(
        "GET",
        "/v1/runs",
        "runs.list",
        list_runs,
        "List runs, newest first.",
        query=RunQuery,
        response=RunPage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/runs/{runId}",
        "runs.get",
        get,
        "One run, with its output.",
        response=RunAnswer,
        errors=(401, 404),
    ),
    Endpoint(
        "POST",
        "/v1/runs/{runId}/cancel",
        "runs.cancel",
        cancel,
        "Cancel a run.",
        response=RunAnswer,
        errors=(401, 404, 409),
    ),
    Endpoint(
        "POST",
        "/v1/runs/{runId}/resume",
        "runs.resume",
        resume,
        "Not served: a waiting run goes on when its approval is decided (422).",
        body=ResumeBody,
        body_optional=True,
        response=RunAnswer,
        errors=(401, 413, 422),
    ),
    Endpoint(
        "GET",
        "/v1/runs/{runId}/journal",
        "runs.journal",
        journal,
        "A run's journal.",
        query=JournalQuery,
        response=JournalPage,
        errors=(400, 401, 404),
    ),
    Endpoint(
        "GET",
        "/v1/runs/{runId}/stream",
        "runs.stream",
        stream,
        "A run's events as server-sent events.",
        errors=(401, 404),
    ),
]
