"""Flow runs: start a flow version, run its nodes, record a journal step per node.

A flow run is an ordinary run (`flowId`, `flowVersion`) whose `output` is the flow's
output, so item pointers such as `/output/articles/0` resolve in it. Its tool calls,
the flow's own and its agent steps', are recorded in order, so a replay can follow them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..domain.errors import NotFound, Unprocessable
from ..domain.flows import FlowDefinition, FlowNode
from ..domain.json import JSONObject
from ..domain.segments import Segment
from ..domain.status import TERMINAL
from ..domain.time import now_iso
from ..ids import ordered_ids
from ..runtime.agent_turn import run_agent_turn
from ..runtime.flow_run import FlowOutcome, FlowStep, NodeRunner, run_flow
from ..runtime.replay_dispatch import DryRunDispatcher
from ..runtime.tool_calls import ToolDispatcher
from ..runtime.turn_outcome import TurnOutcome
from ..store import runs as run_store
from ..store import tool_calls as tool_call_store
from ..store.runs import JournalEntry, StoredRun
from . import catalog, models, projects, runs
from .context import Context

STOPPED_CODE = "replay-stopped"


class FlowRunFailed(Unprocessable):
    """The flow run failed."""

    code = "run-failed"


@dataclass(frozen=True)
class Overrides:
    """Tools and agents a flow runs at other versions than its nodes name (`versions`)."""

    tools: Mapping[str, str] = field(default_factory=dict)
    agents: Mapping[str, str] = field(default_factory=dict)

    def present(self) -> dict[str, dict[str, str]]:
        """`{tools?, agents?}` with only the kinds that have overrides."""
        wire = {"tools": dict(self.tools), "agents": dict(self.agents)}
        return {kind: ids for kind, ids in wire.items() if ids}


def definition(ctx: Context, flow_id: str, version: str | None = None) -> FlowDefinition:
    """A registered flow version as a definition; 404 `flow-not-found`."""
    return FlowDefinition.from_manifest(catalog.get_flow(ctx, flow_id, version))


async def start(
    ctx: Context,
    flow_id: str,
    *,
    flow_version: str | None = None,
    project_id: str | None = None,
    input: Any = None,
    segments: Sequence[Segment] | None = None,
    dry_run: bool = False,
    wait: bool = True,
) -> tuple[runs.Run, int]:
    """Start a flow run on `input`; answer when it ends (`wait`) or at once."""
    flow = definition(ctx, flow_id, flow_version)
    project_id = projects.require(ctx, project_id)
    data = input
    run = open_run(
        ctx,
        flow,
        project_id,
        data,
        segments=segments,
        started_by="person",
        dry_run=dry_run,
    )
    live = runs.live_dispatcher(ctx, project_id, run.id)
    dispatcher: ToolDispatcher = DryRunDispatcher(live) if dry_run else live
    work = perform(ctx, run.id, flow, data, dispatcher)
    if wait:
        finished = await _track(ctx, run.id, work)
        if finished.status == "failed":
            raise FlowRunFailed(finished.failure_message or "The flow run failed.", runId=run.id)
        return runs.run_of(finished), 201
    ctx.run_tasks[run.id] = asyncio.create_task(_track(ctx, run.id, work))
    return runs.run_of(run_store.get(ctx.db, run.id) or run), 202


async def _track(ctx: Context, run_id: str, work: Any) -> StoredRun:
    """Await a flow run, recording a cancellation as the run's end."""
    try:
        await work
    except asyncio.CancelledError:
        runs.finish_cancelled(ctx, run_id)
    finally:
        ctx.run_tasks.pop(run_id, None)
    found = run_store.get(ctx.db, run_id)
    assert found is not None
    return found


def open_run(
    ctx: Context,
    flow: FlowDefinition,
    project_id: str,
    data: Any,
    *,
    segments: Sequence[Segment] | None = None,
    started_by: str | None,
    dry_run: bool = False,
) -> StoredRun:
    """Store a new `running` flow run, committed before it runs (`dry_run`: side effects mocked)."""
    run = new_run(ctx, flow, project_id, data, segments=segments, started_by=started_by,
                  dry_run=dry_run)  # fmt: skip
    with ctx.db.transaction():
        run_store.insert(ctx.db, run)
        run_store.add_journal(ctx.db, run.id, [started(run)])
    return run


def new_run(
    ctx: Context,
    flow: FlowDefinition,
    project_id: str,
    data: Any,
    *,
    segments: Sequence[Segment] | None = None,
    started_by: str | None,
    replay_of: str | None = None,
    eval_run_id: str | None = None,
    overrides: Overrides | None = None,
    dry_run: bool = False,
) -> StoredRun:
    """A new `running` flow run as it starts, not stored yet (a replay's is stored with its
    eval run's page once it ended)."""
    now = now_iso()
    present = overrides.present() if overrides else {}
    versions: JSONObject = {kind: {**pins} for kind, pins in present.items()}
    return StoredRun(
        id=ordered_ids(1)[0],  # ordered by time, as an agent's run's
        tenant_id=ctx.tenant_id,
        project_id=project_id,
        flow_id=flow.id,
        flow_version=flow.version,
        status="running",
        dry_run=dry_run,
        created_at=now,
        updated_at=now,
        input=data,
        segments=None if segments is None else tuple(segments),
        started_by=started_by,
        replay_of=replay_of,
        eval_run_id=eval_run_id,
        context={"versions": versions} if overrides else None,
    )


def started(run: StoredRun) -> JournalEntry:
    """A flow run's first journal entry: when it started, on what input."""
    return JournalEntry("run.started", run.created_at, {"input": run.input})


@dataclass
class Lookups:
    """The catalog's answers a flow's nodes got, by what they asked: a live run's, and
    those every replay of an eval run's flow shares, as an agent replay's candidate keeps
    its tools (an eval run's replays run the versions its first replay looked up)."""

    tools: dict[tuple[str, str | None], Mapping[str, Any] | None] = field(default_factory=dict)
    agents: dict[tuple[str, str | None], dict[str, Any]] = field(default_factory=dict)
    """Agent versions' manifests (a version not found is asked again)."""
    agent_tools: dict[tuple[str, str | None], dict[str, dict[str, Any]]] = field(
        default_factory=dict
    )
    """The tools of each agent version, looked up once its model is found."""
    flows: dict[tuple[str, str], FlowDefinition | None] = field(default_factory=dict)


def runner(
    ctx: Context,
    dispatcher: ToolDispatcher,
    overrides: Overrides | None,
    lookups: Lookups | None = None,
) -> NodeRunner:
    """Runs a flow's nodes: each tool at its override, else the version its node names,
    each looked up once in `lookups` (a new one when none is given)."""
    chosen = overrides or Overrides()
    known = Lookups() if lookups is None else lookups

    def tool_of(node: FlowNode) -> Mapping[str, Any] | None:
        tool_id = node.target_id or ""
        key = (tool_id, chosen.tools.get(tool_id) or node.pinned_version)
        if key not in known.tools:
            try:
                known.tools[key] = catalog.get_tool(ctx, *key)
            except NotFound:
                known.tools[key] = None
        return known.tools[key]

    async def agent_step(
        node: FlowNode, message: str, calls: ToolDispatcher
    ) -> tuple[str, TurnOutcome]:
        agent_id = node.target_id or ""
        key = (agent_id, chosen.agents.get(agent_id) or node.pinned_version)
        if key not in known.agents:
            known.agents[key] = catalog.get_agent(ctx, *key)
        agent = known.agents[key]
        try:
            adapter = models.adapter_for(ctx, dict(agent))
        except Unprocessable as error:
            failure = {"code": error.wire_code, "message": error.message}
            none = {"id": "none", "model": "none"}
            return agent["version"], TurnOutcome([], None, None, [], {"steps": 0}, none, failure)
        if key not in known.agent_tools:
            known.agent_tools[key] = runs.tools_of(ctx, agent)
        tools = known.agent_tools[key]
        return agent["version"], await run_agent_turn(agent, tools, message, [], adapter, calls)

    def flow_of(flow_id: str, version: str) -> FlowDefinition | None:
        key = (flow_id, version)
        if key not in known.flows:
            try:
                known.flows[key] = definition(ctx, flow_id, version)
            except NotFound:
                known.flows[key] = None
        return known.flows[key]

    return NodeRunner(tool_of, agent_step, dispatcher, flow_of)


async def perform(
    ctx: Context,
    run_id: str,
    flow: FlowDefinition,
    data: Any,
    dispatcher: ToolDispatcher,
) -> FlowOutcome:
    """Run the flow and record what it did; never raises for the flow's own failure."""
    outcome = await run_flow(flow, data, runner(ctx, dispatcher, None))
    record(ctx, run_id, outcome, dict(getattr(dispatcher, "tool_env", {}) or {}))
    return outcome


def record(ctx: Context, run_id: str, outcome: FlowOutcome, sent_env: dict[str, Any]) -> None:
    """Store a finished flow run: output, tool calls, a journal step per node."""
    with ctx.db.transaction():
        run = run_store.get(ctx.db, run_id)
        if run is None or run.status in TERMINAL:
            return  # ended meanwhile (a cancel): what the flow did isn't kept
        end = ending(run, outcome, sent_env)
        run_store.update(ctx.db, run_id, end.changes)
        tool_call_store.add_tool_calls(ctx.db, run_id, end.tool_calls)
        run_store.add_journal(ctx.db, run_id, end.journal)


@dataclass(frozen=True)
class Ending:
    """How a flow run ends in the store: the columns its row changes, its tool calls, and
    the journal entries after its start."""

    changes: run_store.RunChanges
    tool_calls: list[JSONObject]
    journal: list[JournalEntry]

    def ended(self, run: StoredRun) -> StoredRun:
        """The run as its row reads once `changes` are made (a replay's, stored so at once)."""
        changes = self.changes
        return replace(
            run,
            status=changes["status"],
            updated_at=changes["updated_at"],
            completed_at=changes["completed_at"],
            output=changes["output"],
            tool_env=changes["tool_env"],
            failure_code=changes.get("failure_code", run.failure_code),
            failure_message=changes.get("failure_message", run.failure_message),
        )


def ending(run: StoredRun, outcome: FlowOutcome, sent_env: dict[str, Any]) -> Ending:
    """What a finished flow run stores: output and how it ended, tool calls, a journal step
    per node."""
    now = now_iso()
    changes: run_store.RunChanges = {
        "status": "completed" if outcome.status == "completed" else "failed",
        "updated_at": now,
        "completed_at": now,
        "output": outcome.output,
        "tool_env": sent_env,
    }
    end: dict[str, Any] = {}
    if outcome.stopped is not None:
        stopped = outcome.stopped
        end = {
            "stopped": {
                "toolId": stopped.tool_id,
                "arguments": stopped.arguments,
                "reason": stopped.reason,
            }
        }
        refuser = "dry run" if run.dry_run else "replay"
        message = (
            f"Stopped at a tool call the {refuser} refused: {stopped.tool_id}: {stopped.reason}"
        )
        changes.update({"failure_code": STOPPED_CODE, "failure_message": message})
    elif outcome.failure is not None:
        end = {"code": "run-failed", "message": outcome.failure}
        changes.update({"failure_code": "run-failed", "failure_message": outcome.failure})
    journal = [_step_entry(step, now) for step in outcome.steps]
    journal += [
        JournalEntry("step.skipped", now, {}, node_id=node_id) for node_id in outcome.skipped
    ]
    kind = "run.completed" if outcome.status == "completed" else "run.failed"
    journal.append(JournalEntry(kind, now, end))
    return Ending(changes, [c.as_journal() for c in outcome.tool_calls], journal)


def _step_entry(step: FlowStep, now: str) -> JournalEntry:
    """One node's journal entry: what it ran at which version, its input, output or error."""
    payload: dict[str, Any] = {"kind": step.kind}
    named = {"tool": "toolId", "agent": "agentId", "subgraph": "flowId"}.get(step.kind)
    if named is not None:
        payload.update({named: step.target_id, "version": step.version})
    payload["input"] = step.input
    if step.error is None:
        payload["output"] = step.output
    else:
        payload["error"] = step.error
    if step.source is not None:
        payload["source"] = step.source
    if step.kind == "agent":
        payload["toolCalls"] = [c.as_journal() for c in step.tool_calls]
        if step.turn is not None:
            payload["appended"] = step.turn.appended
    kind = "step.completed" if step.error is None else "step.failed"
    return JournalEntry(kind, now, payload, node_id=step.node_id)
