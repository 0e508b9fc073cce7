"""Starting a run: check the agent's input, open the run, run the turn and wait or not."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...domain.errors import BadInput, NotFound, Unprocessable, ValidationFailed
from ...domain.facts import REMEMBER_TOOL, RememberPolicy
from ...domain.json import JSON
from ...domain.segments import Segment
from ...domain.text import is_blank
from ...domain.time import now_iso
from ...ids import ordered_ids
from ...runtime.agent_turn import TurnOutcome, resume_agent_turn, run_agent_turn
from ...runtime.approval_gate import ApprovalGate
from ...runtime.dispatch import LiveDispatcher, tool_env
from ...runtime.replay_dispatch import DryRunDispatcher
from ...runtime.tool_calls import ToolDispatcher
from ...runtime.turn_snapshot import TurnSnapshot
from ...store import runs as run_store
from ...store.runs import JournalEntry, StoredRun
from .. import (
    blocks,
    catalog,
    conversations,
    guardrails,
    live,
    models,
    projects,
    remember,
    runnable,
)
from ..context import Context
from . import pause
from .read import Run, run_of
from .record import finish_cancelled, record_outcome

AGENT_FLOW_ID = "agent.turn"
AGENT_FLOW_VERSION = "1.1.0"


class TurnFailedError(Unprocessable):
    """The agent turn failed."""

    code = "model-invocation-failed"


def check_input(agent: Mapping[str, Any], data: Any) -> dict[str, Any]:
    """An agent turn's input: `userMessage` and the agent's declared parameters."""
    if not isinstance(data, dict):
        raise ValidationFailed("input", "must be an object with userMessage")
    message = data.get("userMessage")
    if not isinstance(message, str) or is_blank(message):
        raise ValidationFailed("input/userMessage", "is required: the user's message, a string")
    given = data.get("parameters")
    given = {} if given is None else given
    if not isinstance(given, dict):
        raise ValidationFailed("input/parameters", "must be an object")
    kinds: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "number": (int, float),
        "boolean": bool,
        "date": str,
    }
    for param in agent.get("parameters") or []:
        name = param.get("name")
        if name not in given:
            if param.get("required") and "default" not in param:
                raise ValidationFailed(f"input/parameters/{name}", "is required by the agent")
            continue
        expected = kinds.get(param.get("type", "string"), str)
        if not isinstance(given[name], expected) or isinstance(given[name], bool) != (
            param.get("type") == "boolean"
        ):
            raise ValidationFailed(
                f"input/parameters/{name}", f"must be a {param.get('type', 'string')}"
            )
    return data


async def start(
    ctx: Context,
    agent_id: str,
    *,
    agent_version: str | None = None,
    project_id: str | None = None,
    input: Any = None,
    segments: Sequence[Segment] | None = None,
    dry_run: bool = False,
    wait: bool = True,
) -> tuple[Run, int]:
    """Start an agent turn on `input` (`{userMessage, parameters}`); answer when it ends
    (`wait`) or at once. A version whose pinned tools the pack no longer serves is refused."""
    project_id = projects.require(ctx, project_id)
    version, via = chosen_version(ctx, agent_id, agent_version, project_id, input, segments)
    agent = runnable.agent(ctx, agent_id, version)
    data = check_input(agent, input)
    started_by = "person" if ctx.caller.kind == "user" else "key"
    run = open_run(
        ctx,
        agent,
        project_id,
        data,
        segments=segments,
        started_by=started_by,
        via=via,
        dry_run=dry_run,
    )
    history = conversations.history(ctx, run.conversation_id or "", before_run=run.id)
    live = live_dispatcher(ctx, project_id, run.id, settings=settings_for(ctx, run))
    dispatcher: ToolDispatcher = (
        DryRunDispatcher(live) if dry_run else ApprovalGate(live, unattended=started_by != "person")
    )
    work = perform_turn(ctx, run.id, agent, data["userMessage"], history, dispatcher)
    if wait:
        finished = await _track(ctx, run.id, work)
        if finished.status == "failed":
            output = finished.output if isinstance(finished.output, dict) else {}
            halted = finished.failure_code == guardrails.GUARDRAIL_FAILED
            raise TurnFailedError(
                finished.failure_message or "The agent turn failed.",
                code=finished.failure_code or "model-invocation-failed",
                runId=run.id,
                violations=output.get("violations") if halted else None,
                evaluationErrors=output.get("evaluationErrors", []) if halted else None,
            )
        return run_of(finished), 201
    ctx.run_tasks[run.id] = asyncio.create_task(_track(ctx, run.id, work))
    return run_of(run_store.get(ctx.db, run.id) or run), 202


def chosen_version(
    ctx: Context,
    agent_id: str,
    named: str | None,
    project_id: str,
    data: Any,
    segments: Sequence[Segment] | None,
) -> tuple[str, str]:
    """The version a turn runs and why: the one named (`explicit`), a follow-up turn's
    conversation's (`conversation`), else the one live for its project and segment path
    (`live`), else the latest (`latest`)."""
    if named:
        return named, "explicit"
    kept = conversations.pinned_version(ctx, agent_id, data)
    if kept is not None:
        return kept, "conversation"
    serving = live.for_run(ctx, agent_id, project_id, segments or ())
    return serving.version, serving.via


def settings_for(ctx: Context, run: StoredRun) -> dict[str, dict[str, Any]]:
    """The values of the settings blocks a run pinned, by block id (`ctx.settings`)."""
    return blocks.settings_of(ctx, run.block_pins or {})


def live_dispatcher(
    ctx: Context,
    project_id: str,
    run_id: str,
    env_of: Callable[[Mapping[str, Any]], dict[str, str]] = tool_env,
    settings: Mapping[str, Mapping[str, Any]] | None = None,
) -> LiveDispatcher:
    """A dispatcher that runs a turn's calls in the pack service, with the run's context and
    the settings its agent version pins."""
    invoke = ctx.runtime.invoke if ctx.runtime is not None else _no_pack
    away = ctx.away()
    return LiveDispatcher(
        invoke if away is None else away.sent_home(invoke),
        tenant_id=ctx.tenant_id,
        project_id=project_id,
        run_id=run_id,
        env_of=env_of,
        builtins=remember.builtins(ctx, run_id),
        settings=settings,
    )


async def _no_pack(*args: Any, **kwargs: Any) -> Any:
    """Stands in for the pack service when there is none (a pack without tools, or tests)."""
    raise BadInput("This pack has no pack service running, so its tools can't be called.")


async def _track(ctx: Context, run_id: str, work: Any) -> StoredRun:
    """Await a turn, recording a cancellation as the run's end."""
    try:
        await work
    except asyncio.CancelledError:
        finish_cancelled(ctx, run_id)
    finally:
        ctx.run_tasks.pop(run_id, None)
    found = run_store.get(ctx.db, run_id)
    assert found is not None
    return found


def open_run(
    ctx: Context,
    agent: Mapping[str, Any],
    project_id: str,
    data: dict[str, Any],
    *,
    segments: Sequence[Segment] | None = None,
    started_by: str | None,
    via: str,
    replay_of: str | None = None,
    eval_run_id: str | None = None,
    dry_run: bool = False,
) -> StoredRun:
    """Store a new `running` agent run and its conversation turn, committed before it runs
    (`dry_run`: its side effects mocked), with the settings block versions it pins."""
    now = now_iso()
    pins = blocks.pins_of(ctx, agent) if agent.get("settings") else None
    with ctx.db.transaction():
        conversation_id = conversations.for_turn(
            ctx, agent, project_id, data, replay=replay_of is not None
        )
        run = agent_run(
            ctx,
            agent,
            project_id,
            conversation_id=conversation_id,
            data=data,
            via=via,
            at=now,
            dry_run=dry_run,
            segments=None if segments is None else tuple(segments),
            started_by=started_by,
            replay_of=replay_of,
            eval_run_id=eval_run_id,
            block_pins=pins,
        )
        run_store.insert(ctx.db, run)
        run_store.add_journal(ctx.db, run.id, [JournalEntry("run.started", now, {"input": data})])
    return run


def agent_run(
    ctx: Context,
    agent: Mapping[str, Any],
    project_id: str,
    *,
    conversation_id: str,
    data: JSON,
    via: str,
    at: str,
    dry_run: bool = False,
    segments: tuple[Segment, ...] | None = None,
    started_by: str | None = None,
    replay_of: str | None = None,
    eval_run_id: str | None = None,
    block_pins: dict[str, str] | None = None,
    asked_model: str | None = None,
    run_id: str | None = None,
) -> StoredRun:
    """A new `running` agent-turn run as it is stored, not yet written: the one place a
    live run and a replay's run are built. Its id is ordered by time (`ordered_ids`), so
    the runs' id indexes grow at their last page."""
    return StoredRun(
        id=run_id or ordered_ids(1)[0],
        tenant_id=ctx.tenant_id,
        project_id=project_id,
        flow_id=AGENT_FLOW_ID,
        flow_version=AGENT_FLOW_VERSION,
        status="running",
        dry_run=dry_run,
        created_at=at,
        updated_at=at,
        agent_id=agent["id"],
        agent_version=agent["version"],
        conversation_id=conversation_id,
        via=via,
        input=data,
        segments=segments,
        started_by=started_by,
        replay_of=replay_of,
        eval_run_id=eval_run_id,
        block_pins=block_pins,
        asked_model=asked_model,
    )


async def perform_turn(
    ctx: Context,
    run_id: str,
    agent: Mapping[str, Any],
    message: str,
    history: list[dict[str, Any]],
    dispatcher: ToolDispatcher,
    *,
    tool_env: Mapping[str, Mapping[str, str]] | None = None,
    paused: TurnSnapshot | None = None,
) -> TurnOutcome:
    """Run the turn (or go on with the `paused` one) and record everything it did, or the
    pause at a call held for an approval; never raises for the turn's own failure."""
    tools = tools_of(ctx, agent)
    asked: str | None = None
    try:
        adapter = models.adapter_for(ctx, dict(agent))
        asked = adapter.model
    except Unprocessable as error:
        outcome = TurnOutcome(
            [],
            None,
            None,
            [],
            {"steps": 0},
            {"id": "none", "model": "none"},
            {"code": error.wire_code, "message": error.message},
        )
    else:
        if paused is None:
            outcome = await run_agent_turn(agent, tools, message, history, adapter, dispatcher)
        else:
            outcome = await resume_agent_turn(agent, tools, paused, adapter, dispatcher)
        run = run_store.get(ctx.db, run_id) if guardrails.may_check(agent, outcome) else None
        if run is not None:
            turn = conversations.turn_number(ctx, run.conversation_id or "", run_id)
            outcome = await guardrails.checked(ctx, dict(agent), run, outcome, turn)
    if outcome.paused is not None:
        held = tools.get(outcome.paused.held.tool_id) or {}
        pause.hold(ctx, run_id, dict(agent), str(held.get("version", "")), outcome)
        return outcome
    sent_env = dict(tool_env or getattr(dispatcher, "tool_env", {}) or {})
    journaled = 0 if paused is None else paused.journaled
    record_outcome(ctx, run_id, outcome, history, sent_env, journaled=journaled, asked_model=asked)
    return outcome


def tools_of(ctx: Context, agent: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The manifests of the tools an agent may call, at the versions it pins (the latest of
    one it pins no version of), and the built-in `kindgi_remember` when the agent remembers:
    never another version than the pinned one, which would run other content than the agent
    version's (`runnable` refuses such a version first)."""
    found: dict[str, dict[str, Any]] = {}
    policy = RememberPolicy.of(agent)
    if policy is not None:
        found[REMEMBER_TOOL] = policy.manifest()
    for ref in agent.get("tools") or []:
        try:
            found[ref["id"]] = catalog.get_tool(ctx, ref["id"], ref.get("version"))
        except NotFound:
            continue
    return found
