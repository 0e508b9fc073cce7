"""Trying a version: start a run on a suite or on an agent's frozen test set, or rescore one."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..domain import comparison, two_versions
from ..domain.comparison import ReplayCase, Replayed
from ..domain.errors import BadInput, Conflict, NotFound
from ..domain.json import JSONObject
from ..domain.metrics import Verdict
from ..domain.results import CaseResult, ComparisonResult, Summary
from ..domain.test_sets import parse_set_id
from ..domain.time import now_iso
from ..store import eval_runs as store
from ..store import runs as run_store
from ..store import tool_calls as tool_call_store
from . import (
    eval_runs,
    eval_suites,
    flow_trials,
    projects,
    replay_cases,
    test_set_pulls,
    test_set_versions,
)
from .context import Context


def start_on_suite(
    ctx: Context, suite_id: str, request: eval_runs.StartRequest
) -> eval_runs.Started:
    """Try the candidate on the suite's latest version, one case per judged run (or on a
    pulled test set's latest version)."""
    pulled = test_set_pulls.versions(ctx, suite_id)
    if pulled:
        return _start_on_pulled(ctx, pulled[-1], request)
    agent_set = parse_set_id(suite_id)
    if agent_set is not None and not eval_suites.exists(ctx, suite_id):
        return _start_on_agent_set(ctx, suite_id, agent_set, request)
    suite = eval_suites.get(ctx, suite_id)
    cases = _suite_cases(ctx, suite_id, suite.version, request.restricted_only)
    if request.flow is not None:
        return flow_trials.begin(
            ctx, suite_id=suite_id, suite_version=suite.version, request=request, cases=cases
        )
    return eval_runs.begin(
        ctx, suite_id=suite_id, suite_version=suite.version, request=request, cases=cases
    )


def _suite_cases(
    ctx: Context, suite_id: str, version: str, restricted_only: bool
) -> list[ReplayCase]:
    """A suite version's cases to replay, one per judged run."""
    stored = eval_suites.all_cases(ctx, suite_id, version)
    return replay_cases.from_suite_cases(ctx, stored, restricted_only=restricted_only)


def start_on_test_set(
    ctx: Context, agent_id: str, request: eval_runs.StartRequest, project_id: str | None = None
) -> eval_runs.Started:
    """Freeze the agent's test set as a new version, then try the candidate on it (the
    agent's served version unless the request names another candidate); the project is
    resolved once, here or by the caller (`project_id`)."""
    if project_id is None:
        project_id = projects.require(ctx, request.project_id)
    request = replace(
        request,
        project_id=project_id,
        agent=request.agent or eval_runs.AgentCandidate(agent_id),
    )
    frozen = test_set_versions.freeze(ctx, agent_id, project_id)
    restricted_only = request.restricted_only
    cases = replay_cases.FrozenCases(ctx, frozen.test_set_id, frozen.version, restricted_only)
    return eval_runs.begin(
        ctx,
        suite_id=frozen.test_set_id,
        suite_version=frozen.version,
        request=request,
        cases=cases,
        frozen_version=frozen,
        project_id=project_id,
    )


def _start_on_agent_set(
    ctx: Context, set_id: str, agent_set: tuple[str, str], request: eval_runs.StartRequest
) -> eval_runs.Started:
    """An agent's test set named by its registry id, `<agentId>~<projectId>` (as
    `test-sets list --kind=corrections` prints it): frozen and tried as on the agent's route.
    An id of no project of the tenant names no test set (404, as an unknown suite); an
    unknown `projectId` is 404 as on every start, and another project's is refused."""
    agent_id, project_id = agent_set
    if not projects.exists(ctx, project_id):
        raise NotFound("eval-suite", set_id, id_field="suite_id")
    if request.project_id is not None and projects.require(ctx, request.project_id) != project_id:
        raise BadInput(
            f"{set_id} is {agent_id}'s test set in project {project_id}, not in"
            f" {request.project_id}: give --project={project_id}.",
            field="projectId",
        )
    return start_on_test_set(ctx, agent_id, replace(request, project_id=project_id), project_id)


def _test_set_cases(
    ctx: Context, cases: Iterable[JSONObject], restricted_only: bool
) -> list[ReplayCase]:
    """The frozen cases to replay (only experts' with `restricted-only`)."""
    return [
        found
        for case in cases
        if (not restricted_only or case.get("expert"))
        and (found := replay_cases.from_test_set_case(ctx, case, restricted_only=restricted_only))
        is not None
    ]


def _pulled_cases(
    ctx: Context, test_set_id: str, version: str, restricted_only: bool
) -> list[ReplayCase]:
    """A pulled (or imported) version's cases to replay: frozen cases, then suite cases."""
    stored = list(test_set_pulls.all_cases(ctx, test_set_id, version))
    cases = _test_set_cases(ctx, (c for c in stored if "expect" in c), restricted_only)
    built_before = (c for c in stored if "expect" not in c and "caseId" in c)
    cases += replay_cases.from_suite_cases(ctx, built_before, restricted_only=restricted_only)
    return cases


def _start_on_pulled(
    ctx: Context, pulled: test_set_pulls.PulledVersion, request: eval_runs.StartRequest
) -> eval_runs.Started:
    """Try the candidate on a pulled version, as on a version frozen here: its cases carry
    copies of their runs, with the recorded tool results."""
    cases = _pulled_cases(ctx, pulled.test_set_id, pulled.version, request.restricted_only)
    if request.flow is not None:
        return flow_trials.begin(
            ctx,
            suite_id=pulled.test_set_id,
            suite_version=pulled.version,
            request=request,
            cases=cases,
        )
    frozen = eval_runs.FrozenVersion(pulled.test_set_id, pulled.version)
    return eval_runs.begin(
        ctx,
        suite_id=pulled.test_set_id,
        suite_version=pulled.version,
        request=request,
        cases=cases,
        frozen_version=frozen,
    )


def resume(ctx: Context, run_id: str) -> eval_runs.Started:
    """A new eval run that replays only the cases an interrupted, cancelled or errored run
    didn't finish (the same candidate, settings and cases), keeps the ones it did, and
    sums up the whole set; it names the run it resumed (`resumeOf`)."""
    original = eval_runs.get_record(ctx, run_id)
    result = original.result
    errored = isinstance(result, ComparisonResult) and _has_errors(result.summary)
    if original.status in ("pending", "running"):
        raise Conflict(
            f"Eval run {run_id} is still {original.status}; cancel it first, then resume it.",
            code="eval-run-not-resumable",
            runId=run_id,
        )
    if original.dry_run or not (original.status in ("failed", "cancelled") or errored):
        raise Conflict(
            f"Eval run {run_id} is {original.status} with every case finished, so there is "
            "nothing to resume.",
            code="eval-run-not-resumable",
            runId=run_id,
        )
    agent = original.agent_ref
    if agent is None:
        raise Conflict(
            f"Eval run {run_id} tried a flow: kindgi dev resumes agent runs only.",
            code="eval-run-not-resumable",
            runId=run_id,
        )
    settings = original.settings
    request = eval_runs.StartRequest(
        project_id=original.project_id,
        agent=agent,
        reads=settings.reads,
        repetitions=settings.repetitions,
        k=settings.k,
        class_weights=settings.class_weights,
        sample=settings.sample,
        baseline=settings.baseline,
        reuse=settings.reuse,
    )
    kept = {
        index: entry
        for page in eval_runs.finished_after(ctx, run_id, after=-1)
        for index, entry in page
        if _answered(entry.result)
    }
    frozen = original.frozen_version
    suite_id, version = original.suite_id, original.suite_version
    restricted_only = settings.restricted_only
    cases: Sequence[ReplayCase]
    if frozen is not None and test_set_pulls.versions(ctx, frozen.test_set_id):
        cases = _pulled_cases(ctx, frozen.test_set_id, frozen.version, restricted_only)
    elif frozen is not None:
        cases = replay_cases.FrozenCases(ctx, frozen.test_set_id, frozen.version, restricted_only)
    else:
        cases = _suite_cases(ctx, suite_id, version, restricted_only)
    return eval_runs.begin(
        ctx,
        suite_id=suite_id,
        suite_version=version,
        request=request,
        cases=cases,
        frozen_version=frozen,
        resumed=eval_runs.ResumedFrom(run_id, kept, settings.baseline_version),
    )


def _has_errors(summary: Summary) -> bool:
    """Whether a finished run has cases a side had no answer for (a version baseline's too)."""
    side = summary.baseline_replays
    return summary.errors > 0 or (side is not None and side.errors > 0)


def _answered(result: CaseResult) -> bool:
    """Whether a finished case is kept by a resume: the candidate (and a version baseline)
    answered in one repetition at least."""
    side = result.baseline_replay
    baseline_answered = side is None or side.error is None or bool(side.scores)
    return (result.error is None or bool(result.candidate)) and baseline_answered


def rescore(ctx: Context, run_id: str) -> eval_runs.Started:
    """A new eval run that scores a finished run's replays with the corrections there are now."""
    original = eval_runs.get_record(ctx, run_id)
    if original.status != "completed" or original.dry_run:
        raise Conflict(
            f"Eval run {run_id} is not a completed comparison, so it can't be rescored.",
            code="eval-run-not-rescorable",
            runId=run_id,
        )
    settings = replace(original.settings, rescore_of=run_id)
    record = eval_runs.rescore_record(original, settings)
    new_id = record.run_id
    store.insert(ctx.db, record)
    not_rescored = 0
    finished = eval_runs.finished_after(ctx, run_id, after=-1)
    for index, previous in (pair for page in finished for pair in page):
        entry = previous.result
        rescored = _rescored(ctx, entry, settings)
        if rescored is None:
            not_rescored += 1
            kept = replace(previous, result=replace(entry, rescored=False))
            store.add_case(ctx.db, new_id, index, entry.case_id, kept, now_iso())
            continue
        stored = replace(previous, result=rescored)
        store.add_case(ctx.db, new_id, index, entry.case_id, stored, now_iso())
    summary = replace(
        eval_runs.summarize(ctx, new_id), rescore_of=run_id, not_rescored=not_rescored or None
    )
    store.finish(ctx.db, new_id, status="completed", completed_at=now_iso(), result=summary)
    return eval_runs.Started(new_id)


def _fresh_case(ctx: Context, case_id: str, previous: CaseResult) -> ReplayCase | None:
    """The case's past run with its live verdicts now (weights at today's class weights)."""
    run_ids = previous.run_ids
    replay = run_store.get(ctx.db, run_ids[0]) if run_ids else None
    past_id = replay.replay_of if replay and replay.replay_of else case_id
    return replay_cases.build(ctx, case_id, past_id, _live_verdicts(ctx, past_id), [])


def _live_verdicts(ctx: Context, run_id: str, *, fresh: bool = False) -> list[Verdict]:
    """A run's live verdicts as scoring reads them, at their class's weight now; `fresh`
    when the run is the scored output itself (a replay corrected after it ran)."""
    return [
        Verdict(
            v.item_key,
            v.pointer,
            v.rank,
            v.verdict == "yes",
            v.weight,
            v.restricted,
            v.item_value,
            fresh=fresh,
        )
        for v in store.live_verdicts(ctx.db, run_id)
    ]


def _rescored(
    ctx: Context, entry: CaseResult, settings: eval_runs.RunSettings
) -> CaseResult | None:
    """A finished case scored again from its stored replays (a version baseline's too), with
    the corrections there are now; None when its past run or a replay is gone."""
    case = _fresh_case(ctx, entry.case_id, entry)
    side = entry.baseline_replay
    replays = [
        _stored_replay(ctx, r, entry.diverged, entry.approval_skipped) for r in entry.run_ids
    ]
    sides = [] if side is None else [
        _stored_replay(ctx, r, side.diverged, side.approval_skipped) for r in side.run_ids
    ]  # fmt: skip
    if case is None or any(r is None for r in (*replays, *sides)):
        return None
    scored = _scored(case, [r for r in replays if r is not None], settings)
    rescored = replace(
        entry,
        baseline=scored.baseline,
        candidate=scored.candidate,
        changes=entry.changes if scored.changes is None else scored.changes,
    )
    if side is None:
        return rescored
    again = _scored(case, [r for r in sides if r is not None], settings)
    return two_versions.rescored(rescored, side, again)


def _scored(
    case: ReplayCase, replays: list[Replayed], settings: eval_runs.RunSettings
) -> CaseResult:
    """A case's replays scored again, at the run's k and class weights."""
    scored, _ = comparison.case_result(
        case, replays, k=settings.k, restricted_only=settings.restricted_only
    )
    return scored


def _stored_replay(
    ctx: Context, run_id: str, diverged: bool, approval_skipped: bool
) -> Replayed | None:
    """A stored replay with the verdicts given on it since (`fresh`); None when it's gone."""
    run = run_store.get(ctx.db, run_id)
    if run is None:
        return None
    fresh = tuple(_live_verdicts(ctx, run_id, fresh=True))
    return Replayed(
        run_id,
        run.output,
        tool_call_store.tool_calls(ctx.db, run_id),
        diverged,
        0,
        approval_skipped,
        verdicts=fresh,
    )
