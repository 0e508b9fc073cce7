"""`/v1/eval-runs` and the starts: try an agent version on a suite or an agent's test set."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Literal

from pydantic import ConfigDict, Field, model_validator
from starlette.responses import Response, StreamingResponse

from ..domain.numbers import whole_number
from ..domain.paging import Page
from ..domain.status import TERMINAL
from ..services import eval_runs, trials
from ..services.context import Context
from .baselines import AskedAnswer, ComparisonBaseline
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .eval_events import case_frame, end_chunks
from .eval_results import (
    DryRunPreviewAnswer,
    DryRunResultAnswer,
    JudgedComparisonResult,
    answer_with_case_pages,
    cases_apart,
    mark_cases,
    stream_cases,
)
from .eval_run_bodies import (
    RescoreBody,
    StartEvalRunBody,
    StartSuiteRunBody,
    start_request,
)
from .routing import pages_of, shape, signed
from .wire import OpenModel, WireModel, WirePage, WireTime

EvalRunStatus = Literal["pending", "running", "completed", "failed", "cancelled"]


class StartEvalRunResult(OpenModel):
    """`{runId}` (+ `dryRunPreview` on a dry run)."""

    run_id: str
    dry_run_preview: DryRunPreviewAnswer | None = None


class EvalRunProgress(OpenModel):
    """How far a running eval run got."""

    cases_done: int
    cases: int
    concurrency: int | None = None


class EvalRunAgentRef(OpenModel):
    """The agent version an eval run tried."""

    agent_id: str
    version: str | None = None


class EvalRunFlowRef(OpenModel):
    """The flow version an eval run tried."""

    flow_id: str
    version: str | None = None


class EvalRunSample(OpenModel):
    """The part of the cases an eval run ran on."""

    part: str
    seed: str
    hold_out_share: float


class EvalRunSettings(OpenModel):
    """How an eval run compares, as it was started (the run it rescored, the version a
    version or live baseline replays: `baselineVersion`, and `reuse`: extensions)."""

    baseline: AskedAnswer
    reads: str
    repetitions: int
    k: int
    class_weights: str
    versions: dict[str, dict[str, str]] | None = None
    sample: EvalRunSample | None = None
    rescore_of: str | None = None
    resume_of: str | None = None
    baseline_version: ComparisonBaseline | None = None
    reuse: bool | None = None
    """True on a run asked to reuse answers; absent otherwise, as on a deployed runtime."""

    @model_validator(mode="after")
    def _reuse_only_when_asked(self) -> EvalRunSettings:
        if not self.reuse:
            self.reuse = None
            self.__pydantic_fields_set__.discard("reuse")
        return self


class EvalRunFrozenVersion(OpenModel):
    """The frozen test set version an eval run replays."""

    test_set_id: str
    version: str


class EvalRunAnswer(OpenModel):
    """An eval run; a finished `judged` one has a `JudgedComparisonResult` in `result`."""

    model_config = ConfigDict(title="EvalRun")

    run_id: str
    tenant_id: str
    project_id: str | None = None
    suite_id: str
    suite_version: str
    kind: str
    agent_ref: EvalRunAgentRef | None = None
    flow_ref: EvalRunFlowRef | None = None
    status: EvalRunStatus
    dry_run: bool
    started_at: str
    completed_at: str | None = None
    result: JudgedComparisonResult | DryRunResultAnswer | None = None
    error: str | None = None
    cancel_reason: str | None = None
    correlation_id: str | None = None
    comparison: EvalRunSettings | None = None
    frozen_version: EvalRunFrozenVersion | None = None
    progress: EvalRunProgress | None = None


class EvalRunPage(WirePage[EvalRunAnswer]):
    """A page of eval runs."""


class EvalRunQuery(WireModel):
    """Filters of `evalRuns.list`."""

    limit: int | None = None
    cursor: str | None = None
    suite_id: str | None = None
    status: EvalRunStatus | None = None
    agent_id: str | None = None
    from_: WireTime | None = Field(default=None, alias="from")
    to: WireTime | None = None
    scope_kind: Literal["tenant", "org", "project"] | None = None
    scope_id: str | None = Field(default=None, min_length=1)
    flow_id: str | None = None
    inherit: bool | None = None


def _ready_to_poll() -> None:
    """Build the answer a poll renders before a run begins. Its pydantic core is built on
    first use (not at start: start time, idle memory), and the first poll building it beside
    the run's thread took 17 ms of CPU in turns with it for the GIL: 40 ms of row 11's one
    poll of 1,000 cases. Once built this returns at once."""
    EvalRunAnswer.model_rebuild()


def start_on_suite(call: Call[StartSuiteRunBody, NoQuery]) -> eval_runs.Started:
    """Reads the suite's cases: in a worker thread, as the starts and lists below, so a
    large one never holds up the event loop."""
    _ready_to_poll()
    return trials.start_on_suite(call.ctx, call.path["suiteId"], start_request(call.body))


def start_on_test_set(call: Call[StartEvalRunBody, NoQuery]) -> eval_runs.Started:
    _ready_to_poll()
    return trials.start_on_test_set(call.ctx, call.path["agentId"], start_request(call.body))


def list_runs(call: Call[NoBody, EvalRunQuery]) -> Page[eval_runs.EvalRun] | Response:
    """A page of runs; each judged run's cases are read and written a page at a time, as
    for one run, so listing runs of thousands of cases holds none of them whole."""
    q = call.query
    filters = eval_runs.RunFilters(
        suite_id=q.suite_id,
        status=q.status,
        agent_id=q.agent_id,
        flow_id=q.flow_id,
        since=q.from_,
        until=q.to,
        project_id=q.scope_id if q.scope_kind == "project" else None,
    )
    ctx = call.ctx
    page = eval_runs.list_page(ctx, limit=q.limit, cursor=q.cursor, filters=filters)
    if not any(cases_apart(run.result) for run in page.items):
        return page
    head = signed(shape(EvalRunPage, page), pages_of(ctx, call.request))
    shaped = head["data"] if isinstance(head["data"], list) else []
    cases = [
        (mark_cases(item), eval_runs.case_pages(ctx, run.run_id))
        for item, run in zip(shaped, page.items, strict=True)
        if cases_apart(run.result)
    ]
    return stream_cases(head, cases)


async def get(call: Call[NoBody, NoQuery]) -> eval_runs.EvalRun | Response:
    return _answered(call.ctx, eval_runs.get(call.ctx, call.path["runId"]))


async def cancel(call: Call[NoBody, NoQuery]) -> eval_runs.EvalRun | Response:
    return _answered(call.ctx, await eval_runs.cancel(call.ctx, call.path["runId"]))


def _answered(ctx: Context, run: eval_runs.EvalRun) -> eval_runs.EvalRun | Response:
    """A run's answer: a judged run's cases read and written a page at a time."""
    if not cases_apart(run.result):
        return run
    return answer_with_case_pages(EvalRunAnswer, run, eval_runs.case_pages(ctx, run.run_id))


def rescore(call: Call[RescoreBody, NoQuery]) -> eval_runs.Started:
    _ready_to_poll()
    return trials.rescore(call.ctx, call.path["runId"])


def resume(call: Call[NoBody, NoQuery]) -> eval_runs.Started:
    _ready_to_poll()
    return trials.resume(call.ctx, call.path["runId"])


async def events(call: Call[NoBody, NoQuery]) -> Response:
    """SSE: one event per finished case, then a terminal event, then the stream closes."""
    ctx, run_id = call.ctx, call.path["runId"]
    eval_runs.get_record(ctx, run_id)
    last = call.request.headers.get("last-event-id", "")
    given = whole_number(last.rsplit(":", 1)[-1])  # malformed: from the first case
    after = -1 if given is None else given

    async def frames() -> AsyncIterator[bytes]:
        nonlocal after
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 300
        while loop.time() < deadline:
            record = eval_runs.get_record(ctx, run_id)
            pages = eval_runs.finished_after(ctx, run_id, after=after)
            while finished := await asyncio.to_thread(next, pages, None):
                for index, case in finished:
                    after = index
                    yield case_frame(run_id, index, case)
            if record.status in TERMINAL:
                chunks = _end_chunks(ctx, run_id)
                while chunk := await asyncio.to_thread(next, chunks, b""):
                    yield chunk
                return
            await asyncio.sleep(0.1)

    return StreamingResponse(
        frames(),
        media_type="text/event-stream; charset=utf-8",
        headers={"Cache-Control": "no-cache"},
    )


def _end_chunks(ctx: Context, run_id: str) -> Iterator[bytes]:
    """The terminal frame, with the whole result, its cases read and written a page at a
    time (each step taken off the event loop by the caller)."""
    record = eval_runs.get_record(ctx, run_id)
    result = record.result
    pages = eval_runs.case_pages(ctx, run_id) if cases_apart(result) else None
    yield from end_chunks(run_id, record.status, result, record.error, pages)


ENDPOINTS = [
    Endpoint(
        "POST",
        "/v1/eval-suites/{suiteId}/runs",
        "evalRuns.start",
        start_on_suite,
        "Try an agent version on a suite's latest version.",
        body=StartSuiteRunBody,
        response=StartEvalRunResult,
        status=201,
        errors=(400, 401, 404, 413, 422),
    ),
    Endpoint(
        "POST",
        "/v1/agents/{agentId}/test-set/runs",
        "agents.testSet.runs.start",
        start_on_test_set,
        "Freeze the agent's test set and try a version on it.",
        body=StartEvalRunBody,
        response=StartEvalRunResult,
        status=201,
        errors=(400, 401, 404, 413),
    ),
    Endpoint(
        "GET",
        "/v1/eval-runs",
        "evalRuns.list",
        list_runs,
        "List eval runs.",
        query=EvalRunQuery,
        response=EvalRunPage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/eval-runs/{runId}",
        "evalRuns.get",
        get,
        "One eval run.",
        response=EvalRunAnswer,
        errors=(401, 404),
    ),
    Endpoint(
        "POST",
        "/v1/eval-runs/{runId}/cancel",
        "evalRuns.cancel",
        cancel,
        "Cancel an eval run.",
        response=EvalRunAnswer,
        errors=(401, 404, 409),
    ),
    Endpoint(
        "POST",
        "/v1/eval-runs/{runId}/rescore",
        "evalRuns.rescore",
        rescore,
        "Score a finished run's replays again with today's corrections.",
        body=RescoreBody,
        body_optional=True,
        response=StartEvalRunResult,
        status=201,
        errors=(400, 401, 404, 409),
    ),
    Endpoint(
        "POST",
        "/v1/eval-runs/{runId}/resume",
        "evalRuns.resume",
        resume,
        "Replay only the cases an interrupted, cancelled or errored run didn't finish, into "
        "a new run that names it (`resumeOf`) and sums up the whole set.",
        response=StartEvalRunResult,
        status=201,
        errors=(400, 401, 404, 409),
    ),
    Endpoint(
        "GET",
        "/v1/eval-runs/{runId}/events",
        "evalRuns.events",
        events,
        "Server-sent events: each finished case, then the end.",
        errors=(401, 404),
    ),
]
