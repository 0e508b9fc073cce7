"""Try a version, and an eval run's page: headline, metrics, case by case, the whole result.

A running eval run's page follows the run's cases as they finish, over server-sent
events, and reloads once it ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, fields, replace

from starlette.responses import Response, StreamingResponse

from ..api import eval_run_bodies
from ..api.eval_events import progress_frame, status_frame
from ..api.eval_run_bodies import StartEvalRunBody, StartSuiteRunBody
from ..api.eval_runs import EvalRunAnswer
from ..api.releases import PromoteBody
from ..api.routing import shape
from ..domain.changes import Changes
from ..domain.errors import KindgiError, NotFound, ValidationFailed
from ..domain.items import answer_text
from ..domain.json import JSON, JSONObject
from ..domain.metrics import Metric, Metrics
from ..domain.narrow import text_or_none
from ..domain.numbers import whole_number
from ..domain.releases import PENDING
from ..domain.results import CaseResult, ComparisonResult
from ..domain.status import TERMINAL
from ..services import eval_runs, projects, promotions, runs, trials
from . import charts, forms, releases, test_cases, words
from .web import Visit, redirect

WATCH_SECONDS = 300
CASES_SHOWN = 50
"""Cases an eval run's page shows at once: each reads its two runs and is drawn whole."""


def _from(text: str | None, total: int) -> int:
    """The first case to show: `?from=`, a case's index (the first past the last); 400 when
    it is no whole number."""
    if not text:
        return 0
    start = whole_number(text)
    if start is None:
        raise ValidationFailed("from", "must be a case's index: a whole number, 0 or more")
    return start if start < total else 0


def _pages(first: int, shown: int, total: int) -> dict[str, int | None] | None:
    """Which cases a page shows of how many, and where the pages before and after start
    (None when the run's cases fit on one page)."""
    if total <= CASES_SHOWN:
        return None
    after = first + shown
    return {
        "first": first + 1,
        "last": after,
        "total": total,
        "before": max(first - CASES_SHOWN, 0) if first else None,
        "after": after if after < total else None,
    }


def _baseline(visit: Visit, subject_kind: str, subject_id: str) -> JSON:
    """What the Try form compares with, as a start body's `baseline`: the recorded runs, a
    version of the same agent or flow, or the live one."""
    chosen = visit.field("baseline") or "recorded"
    if chosen in ("recorded", "live"):
        return {"live": {}} if chosen == "live" else chosen
    named = "flowId" if subject_kind == "flow" else "agentId"
    return {named: subject_id, "version": chosen}


def start_request(
    visit: Visit, subject_kind: str, subject_id: str, project_id: str | None = None
) -> eval_runs.StartRequest:
    """The eval run's start request the Try form says: a start body (a suite's names its
    project), parsed as the API parses one."""
    version = visit.field("version") or None
    data = forms.present(
        projectId=project_id,
        repetitions=forms.number_text(visit.field("repetitions") or "1"),
        reads="live" if visit.field("reads") == "live" else "recorded",
        classWeights="restricted-only" if visit.field("experts") else "as-recorded",
        baseline=_baseline(visit, subject_kind, subject_id),
    )
    if subject_kind == "flow":
        data["flowRef"] = forms.present(flowId=subject_id, version=version)
        data["versions"] = {
            "agents": {**_swaps(visit, "agent:")},
            "tools": {**_swaps(visit, "tool:")},
        }
    else:
        data["agentRef"] = forms.present(agentId=subject_id, version=version)
    model = StartEvalRunBody if project_id is None else StartSuiteRunBody
    return eval_run_bodies.start_request(forms.body_of(model, data))


def _swaps(visit: Visit, prefix: str) -> dict[str, str]:
    """The Try form's pickers of one kind (`tool:<id>`, `agent:<id>`): id → the version
    chosen, leaving out those left at the flow's own."""
    given = (visit.form or {}).items()
    return {k[len(prefix) :]: v for k, v in given if k.startswith(prefix) and v}


def _refused(error: KindgiError) -> dict[str, str]:
    """A refused Try beside its field: the runs per case, or else below the form."""
    if error.details.get("field") == "repetitions":
        return {"repetitions": forms.reason_of(error)}
    return {"try": error.message}


async def try_on_suite(visit: Visit) -> Response:
    """`POST …/suites/{id}/try`: try a version on the set's latest version of test cases."""
    suite_id = visit.request.path_params["suiteId"]
    try:
        project = projects.get_default(visit.ctx).id
        request = start_request(visit, visit.field("kind"), visit.field("subject"), project)
        started = trials.start_on_suite(visit.ctx, suite_id, request)
    except KindgiError as error:
        return await test_cases.suite(visit, _refused(error), error.status)
    return redirect(f"/console/eval-runs/{started.run_id}")


async def try_on_test_set(visit: Visit) -> Response:
    """`POST …/agents/{id}/try`: freeze the agent's test set and try a version on it."""
    agent_id = visit.request.path_params["agentId"]
    try:
        request = start_request(visit, "agent", agent_id)
        started = trials.start_on_test_set(visit.ctx, agent_id, request)
    except KindgiError as error:
        return await test_cases.agent_set(visit, _refused(error), error.status)
    return redirect(f"/console/eval-runs/{started.run_id}")


def _answer(output: JSON) -> JSON:
    """An agent turn's answer text, or a flow's output as it is."""
    text = answer_text(output)
    return text if text is not None else output


def _first_run(visit: Visit, run_ids: list[str] | None) -> runs.StoredRun | None:
    """The first of a case's replay runs, if it is still there."""
    try:
        return runs.get_record(visit.ctx, run_ids[0]) if run_ids else None
    except NotFound:
        return None


@dataclass(frozen=True)
class ToolLine:
    """A tool call a case's replay made: its step, tool, arguments and where its result
    came from (and why, when the replay says)."""

    step: JSON
    tool_id: str
    arguments: JSON
    source: str
    reason: str | None


@dataclass(frozen=True)
class CaseView:
    """One case of the result as its page shows it, from the case's record and its runs."""

    title: str
    stopped: str | None
    error: str | None
    recorded: JSON
    version: JSON
    run_ids: list[str]
    baseline_runs: list[str]
    changes: Changes | None
    diverged: bool
    tools: list[ToolLine]


def case_view(visit: Visit, case: CaseResult, index: int) -> CaseView:
    """One case of the result (the `index`th of the run), titled by its question, with the
    recorded answer (a version baseline's, when it is one) and the version's beside it."""
    replay = _first_run(visit, case.run_ids)
    side = case.baseline_replay
    baseline = None if side is None else _first_run(visit, side.run_ids)
    past = replay or baseline
    past_id = None if past is None else past.replay_of
    try:
        recorded = runs.get_record(visit.ctx, past_id) if past_id else None
    except NotFound:
        recorded = None
    before = recorded if side is None else baseline
    tools = [
        ToolLine(t.get("step"), str(t.get("toolId")), t.get("arguments"), str(t.get("source")),
                 text_or_none(t.get("reason")))
        for t in case.tools or []
    ]  # fmt: skip
    return CaseView(
        title=words.case_title(None if recorded is None else recorded.input, index),
        stopped=words.stopped({"stopped": case.stopped}),
        error=case.error,
        recorded=None if before is None else _answer(before.output),
        version=None if replay is None else _answer(replay.output),
        run_ids=case.run_ids,
        baseline_runs=[] if side is None else side.run_ids,
        changes=case.changes,
        diverged=case.diverged,
        tools=tools,
    )


@dataclass(frozen=True)
class MetricRow:
    """A metric as the eval run's table shows it: its name and meaning, the two values, the
    change and, where the paired statistics give one, its 95% interval on the bar's scale
    (0 to 120)."""

    key: str
    name: str
    meaning: str
    baseline: float | None
    candidate: float | None
    delta: float | None
    low: float | None
    high: float | None


def _on_bar(value: float) -> float:
    """A share's place on the 120-wide bar, clamped to it."""
    return min(max(value, 0.0), 1.0) * 120


def metric_rows(metrics: Metrics) -> list[MetricRow]:
    """Each metric the run has, in the summary's order, from its record."""
    rows = []
    for field in fields(Metrics):
        metric: Metric | None = getattr(metrics, field.name)
        if metric is None:
            continue
        key = charts.METRIC_KEYS[field.name]
        interval = None if metric.paired is None else metric.paired.interval
        before, low, high = metric.baseline, None, None
        if interval is not None and before is not None:
            low, high = _on_bar(before + interval.low), _on_bar(before + interval.high)
        name = words.metric_name(key, {"k": metric.k or 10})
        meaning = words.metric_meaning(key, metric.k or 10)
        rows.append(
            MetricRow(key, name, meaning, before, metric.candidate, metric.delta, low, high)
        )
    return rows


MADE = {
    "live": "Made live: runs in this project that name no version now get it.",
    "waiting": "Asked to make it live: it goes live once a reviewer approves it.",
}


async def show(visit: Visit, made: str | None = None, status: int = 200) -> Response:
    """`/console/eval-runs/{id}`: the run on the test cases, in words and numbers, and the
    gate's verdict on its version; its cases `CASES_SHOWN` at a time (`?from=N`), so a run
    of thousands opens as fast as one of ten. `made` says what **Make it live** did."""
    record = eval_runs.get(visit.ctx, visit.request.path_params["runId"])
    total = record.result.summary.cases if isinstance(record.result, ComparisonResult) else 0
    first = _from(visit.request.query_params.get("from"), total)
    shown = eval_runs.case_slice(visit.ctx, record, first, CASES_SHOWN) if total else []
    if isinstance(record.result, ComparisonResult):
        record = replace(record, result=replace(record.result, per_case=shown))
    shaped = shape(EvalRunAnswer, record).get("result")
    result: JSONObject = shaped if isinstance(shaped, dict) else {}
    judged = record.result if isinstance(record.result, ComparisonResult) else None
    view = None if judged is None else words.summary_view(judged.summary)
    done = record.status == "completed" and view is not None
    return visit.render(
        "eval_run.html",
        status,
        record=record,
        tried=words.tried(record),
        gate=releases.gate_view(visit, record),
        made=made or MADE.get(visit.request.query_params.get("made", "")),
        headline=words.headline(view) if done and view is not None else None,
        cost_line=None if judged is None else words.cost_line(judged.summary.cost),
        noise=words.noise(view) if done and view is not None else None,
        against=words.against(view) if view is not None else None,
        baseline_column=(view.baseline if view else None) or "Recorded runs",
        restricted=record.comparison is not None and record.comparison.restricted_only,
        restricted_line=words.RESTRICTED,
        metrics=[] if judged is None else metric_rows(judged.summary.metrics),
        cases=[case_view(visit, case, first + i) for i, case in enumerate(shown)],
        pages=_pages(first, len(shown), total),
        whole=result or None,
        running=record.status in ("pending", "running"),
    )


async def make_live(visit: Visit) -> Response:
    """`POST /console/eval-runs/{runId}/make-live`: promote the version the run tried, judged
    on it, for its project; back to the run's page saying what happened, or with the
    gate's refusal."""
    run_id = visit.request.path_params["runId"]
    record = eval_runs.get(visit.ctx, run_id)
    tried = releases.candidate(record)
    if tried is None:
        return await show(visit, made="This run tried no agent version to make live.", status=409)
    agent_id, version = tried
    reason = visit.field("reason") or f"Made live from the console, judged on eval run {run_id}."
    scope = {"kind": "project", "projectId": record.project_id}
    data = {"version": version, "scope": scope, "reason": reason, "evalRunId": run_id}
    try:
        body = forms.body_of(PromoteBody, data)
        row = promotions.promote(visit.ctx, agent_id, body.record())
    except KindgiError as error:
        return await show(visit, made=error.message, status=error.status)
    outcome = "waiting" if row.status == PENDING else "live"
    return redirect(f"/console/eval-runs/{run_id}?made={outcome}")


async def events(visit: Visit) -> Response:
    """Server-sent events: `progress` with cases done of total, then `end` (from the run's
    row alone: no case is read)."""
    run_id = visit.request.path_params["runId"]
    eval_runs.get_record(visit.ctx, run_id)

    async def frames() -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WATCH_SECONDS
        last = -1
        while loop.time() < deadline:
            record = eval_runs.get(visit.ctx, run_id)
            result = record.result
            finished = result.summary.cases if isinstance(result, ComparisonResult) else 0
            progress = record.progress or eval_runs.CaseProgress(finished, finished)
            if progress.cases_done != last:
                last = progress.cases_done
                yield progress_frame(progress.cases_done, progress.cases)
            if record.status in TERMINAL:
                yield status_frame(record.status)
                return
            await asyncio.sleep(0.2)

    return StreamingResponse(
        frames(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
    )
