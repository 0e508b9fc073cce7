"""Trying a flow version on test cases: each case's past input through the flow, as a replay.

The candidate is a flow version, with some of its tools or agents swapped to other versions
(`versions`). Each node follows the replay policy; a tool node whose call the replay refuses
stops the case, which then has no output to rate and is left out of the metrics.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping

from ..domain.catalog import Kind
from ..domain.comparison import ReplayCase, Replayed
from ..domain.errors import BadInput, NotFound, ValidationFailed
from ..domain.flows import FlowDefinition
from ..runtime.dispatch import tool_env
from ..runtime.flow_run import run_flow
from ..runtime.replay_dispatch import ReplayDispatcher
from ..store import runs as run_store
from . import catalog, eval_runs, flow_runs, projects, runnable, runs
from .context import Context
from .eval_runs import page as pages
from .eval_runs.page import ReplayRows


def refused_version(path: str, message: str) -> BadInput:
    """400 `validation-failed` with the page's words as the message and under `issues`."""
    return BadInput(
        message, code="validation-failed", field=path, issues=[{"path": path, "message": message}]
    )


def check_overrides(
    ctx: Context, flow: FlowDefinition, versions: flow_runs.Overrides
) -> flow_runs.Overrides:
    """The swaps, each of a tool or agent the flow uses, at a registered version that can run
    (any indexed agent version, as long as the pack serves the tool versions it pins)."""
    kinds: tuple[tuple[Kind, Mapping[str, str]], ...] = (
        ("tool", versions.tools),
        ("agent", versions.agents),
    )
    for kind, swaps in kinds:
        used = flow.used(kind)
        for item_id, version in swaps.items():
            path = f"versions/{kind}s/{item_id}"
            if item_id not in used:
                raise refused_version(path, f"flow {flow.id} {flow.version} doesn't use {item_id}")
            problem = _swap_problem(ctx, kind, item_id, version)
            if problem is not None:
                raise refused_version(path, problem)
    return flow_runs.Overrides(tools=dict(versions.tools), agents=dict(versions.agents))


def _swap_problem(ctx: Context, kind: Kind, item_id: str, version: str) -> str | None:
    """Why a tool or agent can't be swapped in at `version`, or None."""
    try:
        found = catalog.get(ctx, kind, item_id, version)
    except NotFound:
        return f"{kind} {item_id} has no version {version}"
    if kind == "tool":
        served = runnable.serves(ctx, item_id, version)
        return None if served else f"tool {item_id} {version} is no longer served by the pack"
    missing = runnable.missing_tools(ctx, found)
    return runnable.why_not(f"agent {item_id}", version, missing) if missing else None


def begin(
    ctx: Context,
    *,
    suite_id: str,
    suite_version: str,
    request: eval_runs.StartRequest,
    cases: list[ReplayCase],
) -> eval_runs.Started:
    """Check the flow candidate and its swaps (nothing is written when refused), then start."""
    if request.agent is not None or request.flow is None:
        raise BadInput("Give exactly one of agentRef or flowRef.", field="agentRef")
    if request.reuse:
        raise ValidationFailed(
            "reuse", "applies to an agent candidate: a flow's cases are replayed every time"
        )
    ref = request.flow
    project_id = projects.require(ctx, request.project_id)
    flow = flow_runs.definition(ctx, ref.flow_id, ref.version)
    overrides = check_overrides(ctx, flow, request.versions)
    runnable.check_flow(ctx, flow, overrides.agents, overrides.tools)
    found = eval_runs.resolve_flow_baseline(ctx, request.baseline, flow.id)
    baseline, baseline_flow = (None, None) if found is None else found
    eval_runs.check_overrides(request, None)
    record = eval_runs.new_record(
        ctx,
        request,
        suite_id=suite_id,
        suite_version=suite_version,
        project_id=project_id,
        cases=cases,
        baseline=baseline,
        flow=eval_runs.FlowCandidate(flow.id, flow.version),
        versions=overrides.present(),
    )

    def replays_of(version: FlowDefinition, swaps: flow_runs.Overrides) -> eval_runs.Replay:
        lookups = flow_runs.Lookups()  # shared by the version's replays

        async def replay(case: ReplayCase, reads: str, _repetition: int) -> Replayed:
            return await replay_case(
                ctx, record.run_id, version, swaps, lookups, project_id, case, reads
            )

        return replay

    concurrency = ctx.settings.eval_concurrency or os.cpu_count() or 1
    # another version of the flow, as it is: no swaps
    other = None if baseline_flow is None else replays_of(baseline_flow, flow_runs.Overrides())
    return eval_runs.launch(
        ctx, record, request, cases, replays_of(flow, overrides), concurrency, baseline=other
    )


async def replay_case(
    ctx: Context,
    eval_run_id: str,
    flow: FlowDefinition,
    overrides: flow_runs.Overrides,
    lookups: flow_runs.Lookups,
    project_id: str,
    case: ReplayCase,
    reads: str,
) -> Replayed:
    """One replay of a flow case: an ordinary flow run marked `replayOf` and `evalRunId`,
    worked out in memory and stored with its eval run's page, as an agent's replay is."""
    run = flow_runs.new_run(
        ctx,
        flow,
        project_id,
        case.flow_input,
        started_by=None,
        replay_of=case.run_id,
        eval_run_id=eval_run_id,
        overrides=overrides,
    )
    live = runs.live_dispatcher(
        ctx,
        project_id,
        run.id,
        env_of=lambda tool: dict(case.tool_env.get(str(tool.get("id")), tool_env(tool))),
    )
    dispatcher = ReplayDispatcher(
        case.recorded,
        live,
        reads=reads,  # type: ignore[arg-type]
        strict=case.strict,
        tool_env=case.tool_env,
    )
    nodes = flow_runs.runner(ctx, dispatcher, overrides, lookups)
    try:
        outcome = await run_flow(flow, case.flow_input, nodes)
    except asyncio.CancelledError:
        cancelled = eval_run_id in ctx.eval_tasks
        pages.store_now(ctx, pages.started_rows(run, None, cancelled=cancelled))
        raise
    end = flow_runs.ending(run, outcome, dict(dispatcher.tool_env or {}))
    rows = ReplayRows(None, end.ended(run), end.tool_calls, [flow_runs.started(run), *end.journal],
                      [])  # fmt: skip
    page = pages.current.get()
    if page is None:
        pages.store_now(ctx, rows)
    else:
        page.add_replay(rows)
    stopped = outcome.stopped
    turns = [step.turn for step in outcome.steps if step.turn is not None]
    return Replayed(
        run_id=run.id,
        output=run_store.as_read(rows.run.output),
        tools=end.tool_calls,  # as its rows keep them, worked out once
        diverged=dispatcher.diverged,
        refused=dispatcher.refused,
        approval_skipped=dispatcher.approval_skipped,
        provider=turns[0].provider if turns else {},
        error=outcome.failure if outcome.status == "failed" else None,
        stopped=None
        if stopped is None
        else {"toolId": stopped.tool_id, "arguments": stopped.arguments, "reason": stopped.reason},
    )
