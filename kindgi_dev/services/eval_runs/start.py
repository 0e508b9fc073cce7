"""Starting an eval run: check its settings, store it `running`, start or preview its replays.

Starting one answers at once; the replays run in the background (see `execute`).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ...domain import sampling
from ...domain.comparison import ReplayCase, Replayed
from ...domain.errors import BadInput, ValidationFailed
from ...domain.eval_runs import AgentCandidate, FlowCandidate, FrozenVersion, RunSettings, Sample
from ...domain.results import Baseline, DryRunResult, FinishedCase, PreviewCase, ReplayCount
from ...domain.time import now_iso
from ...store import eval_runs as store
from ...store.eval_runs import EvalRunRow
from .. import models, projects, runnable
from ..context import Context
from .baselines import resolve_agent
from .execute import Replay, spawn
from .replay import ReplayCandidate, replay_case
from .request import StartRequest, asked_settings
from .result import finish


@dataclass(frozen=True)
class DryRunPreview:
    """The cases a dry run would replay, and how many replays each side would make."""

    cases: int
    preview: list[PreviewCase]
    replays: ReplayCount | None = None


@dataclass(frozen=True)
class ResumedFrom:
    """What a resumed run keeps of the run it resumes: that run's id, its finished cases by
    index (stored in the new run as they are; only the others replay), and the version
    baseline it replayed, as it resolved then."""

    run_id: str
    kept: dict[int, FinishedCase]
    baseline: Baseline | None = None


@dataclass(frozen=True)
class Started:
    """What starting (or rescoring) an eval run answers: its id, and a dry run's preview."""

    run_id: str
    dry_run_preview: DryRunPreview | None = None


def begin(
    ctx: Context,
    *,
    suite_id: str,
    suite_version: str,
    request: StartRequest,
    cases: Sequence[ReplayCase],
    frozen_version: FrozenVersion | None = None,
    resumed: ResumedFrom | None = None,
    project_id: str | None = None,
) -> Started:
    """Store the eval run as `running` and start its replays (those `resumed` didn't
    finish); its id at once. The project is the request's, resolved here, unless the caller
    resolved it already (`project_id`)."""
    ref = request.agent
    if request.flow is not None or ref is None:
        raise BadInput(
            "Give agentRef: kindgi dev tries agent versions on test cases.", field="agentRef"
        )
    if project_id is None:
        project_id = projects.require(ctx, request.project_id)
    agent = runnable.agent(ctx, ref.agent_id, ref.version)
    baseline, other = _baseline(ctx, request, agent["id"], resumed)
    check_overrides(request, agent)
    record = new_record(
        ctx,
        request,
        suite_id=suite_id,
        suite_version=suite_version,
        project_id=project_id,
        cases=cases,
        frozen_version=frozen_version,
        baseline=baseline,
        agent=AgentCandidate(agent["id"], agent["version"]),
    )

    def replays_of(version: dict[str, Any]) -> Replay:
        shared: list[ReplayCandidate] = []  # looked up at the first replay, on the eval loop

        async def replay(case: ReplayCase, reads: str, repetition: int) -> Replayed:
            if not shared:
                shared.append(ReplayCandidate.of(ctx, version, reuse=request.reuse))
            return await replay_case(
                ctx, record.run_id, shared[0], project_id, case, reads, repetition
            )

        return replay

    concurrency = models.eval_concurrency(ctx, agent)
    if other is None:
        return launch(ctx, record, request, cases, replays_of(agent), concurrency, resumed)
    concurrency = min(concurrency, models.eval_concurrency(ctx, other))
    return launch(
        ctx, record, request, cases, replays_of(agent), concurrency, resumed, replays_of(other)
    )


def _baseline(
    ctx: Context, request: StartRequest, agent_id: str, resumed: ResumedFrom | None
) -> tuple[Baseline | None, dict[str, Any] | None]:
    """The version baseline a start replays beside the candidate, resolved once, and the
    manifest its replays run (None, None for the recorded runs); a resumed run's is the
    one the run it resumes replayed."""
    if resumed is not None and resumed.baseline is not None:
        baseline = resumed.baseline
        return baseline, runnable.agent(ctx, str(baseline.agent_id), baseline.version)
    found = resolve_agent(ctx, request.baseline, agent_id)
    return (None, None) if found is None else found


def new_record(
    ctx: Context,
    request: StartRequest,
    *,
    suite_id: str,
    suite_version: str,
    project_id: str,
    cases: Sequence[ReplayCase],
    frozen_version: FrozenVersion | None = None,
    baseline: Baseline | None = None,
    agent: AgentCandidate | None = None,
    flow: FlowCandidate | None = None,
    versions: dict[str, dict[str, str]] | None = None,
) -> EvalRunRow:
    """A `running` eval run's row trying the agent or the flow (with its swaps, `versions`),
    with the comparison's settings and the version baseline it replays, resolved; its
    overrides are checked (`check_overrides`) before."""
    return EvalRunRow(
        run_id=str(uuid.uuid4()),
        tenant_id=ctx.tenant_id,
        project_id=project_id,
        suite_id=suite_id,
        suite_version=suite_version,
        status="running",
        dry_run=request.dry_run,
        started_at=now_iso(),
        agent_ref=agent,
        flow_ref=flow,
        correlation_id=request.correlation_id,
        comparison=replace(
            asked_settings(request), baseline_version=baseline, versions=versions or None
        ),
        frozen_version=frozen_version,
        case_count=len(cases),
    )


def rescore_record(original: EvalRunRow, settings: RunSettings) -> EvalRunRow:
    """A `running` eval run's row that rescores a finished one: the same candidate, suite
    or frozen version and cases, with the settings given (naming the run it rescores)."""
    return EvalRunRow(
        run_id=str(uuid.uuid4()),
        tenant_id=original.tenant_id,
        project_id=original.project_id,
        suite_id=original.suite_id,
        suite_version=original.suite_version,
        status="running",
        started_at=now_iso(),
        agent_ref=original.agent_ref,
        flow_ref=original.flow_ref,
        comparison=settings,
        frozen_version=original.frozen_version,
        case_count=original.case_count,
    )


def launch(
    ctx: Context,
    record: EvalRunRow,
    request: StartRequest,
    cases: Sequence[ReplayCase],
    replay: Replay,
    concurrency: int,
    resumed: ResumedFrom | None = None,
    baseline: Replay | None = None,
) -> Started:
    """Store the eval run and start replaying its cases in the background, with a version
    baseline's replays beside the candidate's (or preview them, counting each side's); a
    resumed run first stores the cases the run it resumes finished, and replays the rest."""
    run_id = record.run_id
    settings = record.settings
    if request.sample is not None:
        cases = _sampled(cases, request.sample)
        settings = replace(settings, sample=request.sample)
    if resumed is not None:
        settings = replace(settings, resume_of=resumed.run_id)
    record = replace(record, case_count=len(cases), comparison=settings)
    store.insert(ctx.db, record)
    if request.dry_run:
        preview = [
            PreviewCase(i, c.case_id, c.message if c.flow_input is None else c.flow_input, c.run_id)
            for i, c in enumerate(cases)
        ]
        each = len(cases) * request.repetitions
        replays = ReplayCount(each, 0 if baseline is None else each)
        finish(ctx, run_id, "completed", DryRunResult(True, preview, replays))
        return Started(run_id, DryRunPreview(len(cases), preview, replays))
    kept = resumed.kept if resumed is not None else {}
    for index, entry in sorted(kept.items()):
        store.add_case(ctx.db, run_id, index, entry.result.case_id, entry, now_iso())
    spawn(ctx, run_id, replay, cases, concurrency, baseline, frozenset(kept))
    return Started(run_id)


def _sampled(cases: Sequence[ReplayCase], given: Sample) -> list[ReplayCase]:
    """The cases of the sample's part, split by its seed and stratified by a "no"."""
    return sampling.sample(
        cases,
        part=given.part,
        seed=given.seed,
        hold_out_share=given.hold_out_share,
        case_id=lambda case: case.case_id,
        has_no=_has_no,
    )


def _has_no(case: ReplayCase) -> bool:
    """Whether a case has a "no": an item marked wrong, or a part it should have done/said."""
    return any(not v.yes for v in case.verdicts) or any(
        e.expected.verdict == "wrong" for e in case.expectations
    )


def check_overrides(request: StartRequest, agent: Mapping[str, Any] | None) -> None:
    """400 for `overrides` kindgi dev can't apply, saying why (nothing applies here): a flow
    candidate's (`agent` None), or the agent version resolved for the start's."""
    if not request.override_settings and not request.override_prompts:
        return
    if request.flow is not None or request.agent is None or agent is None:
        raise ValidationFailed(
            "overrides", "applies to an agent candidate; a flow's parts are set with versions"
        )
    named = f"{agent['id']}@{agent['version']}"
    pinned = {str(pin.get("id")) for pin in agent.get("settings") or []}
    for block_id in request.override_settings:
        if block_id not in pinned:
            raise ValidationFailed(
                f"overrides/settings/{block_id}", f"is not a settings block {named} pins"
            )
        raise ValidationFailed(
            f"overrides/settings/{block_id}",
            "can't apply under kindgi dev: it doesn't serve settings blocks' content to "
            "tools, so a replay would run the same either way; try it on a runtime you "
            "deploy to",
        )
    for block_id in request.override_prompts:
        raise ValidationFailed(
            f"overrides/prompts/{block_id}",
            f"can't apply: {named} pins no prompt block, since kindgi dev runs instructions "
            "given as text only",
        )
