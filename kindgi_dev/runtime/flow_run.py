"""Running a flow: its nodes in dependency order, a bounded number at a time, one step each.

Tool nodes are calls through a `ToolDispatcher` (live, or a replay's), so a replay follows
the same policy node by node; a call the dispatcher refuses stops the flow there. An agent
node is an agent turn whose refused calls go back to its model, as in an agent replay.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from jsonschema import Draft202012Validator

from ..domain.flows import FlowDefinition, FlowNode, FlowProgress
from ..models import ToolCall
from .tool_calls import ToolCallRecord, ToolDispatcher
from .turn_outcome import TurnOutcome

DEFAULT_PARALLELISM = 4
FlowStatus = Literal["completed", "failed", "stopped"]


@dataclass(frozen=True)
class StoppedCall:
    """The tool call a replay refused, where the flow stopped."""

    tool_id: str
    arguments: Any
    reason: str


@dataclass(frozen=True)
class FlowStep:
    """One node's step: what it ran, at which version, with what input, and how it ended."""

    node_id: str
    kind: str
    target_id: str
    version: str
    input: Any
    output: Any = None
    error: str | None = None
    source: str | None = None
    tool_calls: tuple[ToolCallRecord, ...] = ()
    turn: TurnOutcome | None = None


@dataclass(frozen=True)
class FlowOutcome:
    """How a flow run ended: its output, or its failure, or the call it stopped at."""

    status: FlowStatus
    output: Any
    steps: tuple[FlowStep, ...]
    skipped: tuple[str, ...] = ()
    failure: str | None = None
    stopped: StoppedCall | None = None

    @property
    def tool_calls(self) -> list[ToolCallRecord]:
        """Every tool call of the run, node by node, agent steps' calls included."""
        return [call for step in self.steps for call in step.tool_calls]


ToolResolver = Callable[[FlowNode], Mapping[str, Any] | None]
AgentStep = Callable[[FlowNode, str, ToolDispatcher], Awaitable[tuple[str, TurnOutcome]]]


@dataclass
class NodeRunner:
    """Runs tool nodes through `dispatcher` and agent nodes through `agent_step`.

    `tool_of` gives a tool node's manifest at the version the run uses (None: unknown);
    `agent_step` runs an agent turn on a message and says which agent version ran.
    """

    tool_of: ToolResolver
    agent_step: AgentStep
    dispatcher: ToolDispatcher
    _calls: int = field(default=0)

    async def run(self, node: FlowNode, node_input: Any) -> FlowStep:
        """One node's step; never raises for the node's own failure."""
        if node.kind == "agent":
            return await self._agent(node, node_input)
        return await self._tool(node, node_input)

    async def _tool(self, node: FlowNode, node_input: Any) -> FlowStep:
        manifest = self.tool_of(node)
        tool_id = node.target_id or ""
        arguments = node_input if isinstance(node_input, dict) else {"input": node_input}
        call = ToolCall(tool_id, arguments, id=f"{node.id}:{self._calls}")
        self._calls += 1
        if manifest is None:
            error = f"The pack serves no tool {node.ref}."
            return FlowStep(node.id, "tool", tool_id, node.pinned_version or "", arguments,
                            error=error)  # fmt: skip
        record = await self.dispatcher.call(self._calls - 1, call, dict(manifest))
        return FlowStep(
            node.id, "tool", tool_id, record.tool_version, arguments,
            output=record.result if record.error is None else None, error=record.error,
            source=record.source, tool_calls=(record,),
        )  # fmt: skip

    async def _agent(self, node: FlowNode, node_input: Any) -> FlowStep:
        message = agent_message(node_input)
        version, turn = await self.agent_step(node, message, self.dispatcher)
        output = turn.output if turn.output is not None else (turn.response or {}).get("content")
        error = None if turn.failure is None else str(turn.failure.get("message"))
        return FlowStep(
            node.id, "agent", node.target_id or "", version, node_input,
            output=output if error is None else None, error=error,
            tool_calls=tuple(turn.tool_calls), turn=turn,
        )  # fmt: skip


def agent_message(node_input: Any) -> str:
    """What an agent step is asked: `userMessage`, a string input, else the input as JSON."""
    if isinstance(node_input, dict) and isinstance(node_input.get("userMessage"), str):
        return str(node_input["userMessage"])
    if isinstance(node_input, str):
        return node_input
    return json.dumps(node_input, ensure_ascii=False, sort_keys=True)


async def run_flow(
    flow: FlowDefinition,
    run_input: Any,
    runner: NodeRunner,
    *,
    max_parallelism: int | None = None,
) -> FlowOutcome:
    """Run every node whose edges are taken, at most `maxParallelism` at once, in order."""
    limit = max(1, max_parallelism or flow.max_parallelism or DEFAULT_PARALLELISM)
    progress = FlowProgress(flow, run_input)
    steps: list[FlowStep] = []
    queue: list[FlowNode] = []
    running: dict[asyncio.Task[FlowStep], FlowNode] = {}
    try:
        while True:
            for node in progress.advance():
                progress.started.add(node.id)
                queue.append(node)
            while queue and len(running) < limit:
                node = queue.pop(0)
                task = asyncio.create_task(runner.run(node, progress.node_input(node)))
                running[task] = node
            if not running:
                break
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in sorted(done, key=lambda t: running[t].id):
                node = running.pop(task)
                step = task.result()
                steps.append(step)
                ended = _ended(step, steps, progress)
                if ended is not None:
                    return ended
                progress.outputs[node.id] = step.output
    finally:
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)
    return _finished(flow, progress, steps)


def _ended(step: FlowStep, steps: list[FlowStep], progress: FlowProgress) -> FlowOutcome | None:
    """The outcome when a step stops or fails the flow, else None."""
    skipped = tuple(sorted(progress.skipped))
    refused = next((c for c in step.tool_calls if c.source == "refused"), None)
    if step.kind == "tool" and refused is not None:
        stopped = StoppedCall(refused.tool_id, refused.arguments, refused.reason or "")
        return FlowOutcome("stopped", None, tuple(steps), skipped, stopped=stopped)
    if step.error is not None:
        failure = f"Node {step.node_id} ({step.kind} {step.target_id}) failed: {step.error}"
        return FlowOutcome("failed", None, tuple(steps), skipped, failure=failure)
    return None


def _finished(flow: FlowDefinition, progress: FlowProgress, steps: list[FlowStep]) -> FlowOutcome:
    """The completed run's output, checked against the flow's output schema when it has one."""
    output = progress.output()
    skipped = tuple(sorted(progress.skipped))
    if flow.output_schema is not None:
        errors = list(Draft202012Validator(dict(flow.output_schema)).iter_errors(output))
        if errors:
            failure = f"The flow's output does not match its output schema: {errors[0].message}"
            return FlowOutcome("failed", None, tuple(steps), skipped, failure=failure)
    return FlowOutcome("completed", output, tuple(steps), skipped)
