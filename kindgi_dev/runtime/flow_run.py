"""Running a flow: its nodes in dependency order, a bounded number at a time, one step each.

Tool nodes are calls through a `ToolDispatcher` (live, or a replay's), so a replay follows
the same policy node by node; a call the dispatcher refuses stops the flow there. An agent
node is an agent turn whose refused calls go back to its model, as in an agent replay.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from ..domain.flows import (
    MISSING,
    FlowDefinition,
    FlowEnv,
    FlowNode,
    FlowProgress,
    Resolved,
    holds,
    resolve,
)
from ..domain.json import JSON, JSONObject
from ..models import ToolCall
from .tool_calls import ToolCallRecord, ToolDispatcher
from .turn_outcome import TurnOutcome
from .typed_output import first_error

DEFAULT_PARALLELISM = 4
FlowStatus = Literal["completed", "failed", "stopped"]


@dataclass(frozen=True)
class StoppedCall:
    """The tool call a replay refused, where the flow stopped."""

    tool_id: str
    arguments: JSON
    reason: str


@dataclass(frozen=True)
class FlowStep:
    """One node's step: what it ran, at which version, with what input, and how it ended."""

    node_id: str
    kind: str
    target_id: str
    version: str
    input: JSON
    output: JSON = None
    error: str | None = None
    source: str | None = None
    tool_calls: tuple[ToolCallRecord, ...] = ()
    turn: TurnOutcome | None = None
    stopped: StoppedCall | None = None
    """A call of the flow itself (not of an agent step's model) that the replay refused."""


@dataclass(frozen=True)
class FlowOutcome:
    """How a flow run ended: its output, or its failure, or the call it stopped at."""

    status: FlowStatus
    output: JSON
    steps: tuple[FlowStep, ...]
    skipped: tuple[str, ...] = ()
    failure: str | None = None
    stopped: StoppedCall | None = None

    @property
    def tool_calls(self) -> list[ToolCallRecord]:
        """Every tool call of the run, node by node, agent steps' calls included."""
        return [call for step in self.steps for call in step.tool_calls]


ToolResolver = Callable[[FlowNode], Mapping[str, JSON] | None]
AgentStep = Callable[[FlowNode, str, ToolDispatcher], Awaitable[tuple[str, TurnOutcome]]]
FlowResolver = Callable[[str, str], FlowDefinition | None]
MAX_SUBFLOW_DEPTH = 10


@dataclass
class NodeRunner:
    """Runs tool nodes through `dispatcher` and agent nodes through `agent_step`.

    `tool_of` gives a tool node's manifest at the version the run uses (None: unknown);
    `agent_step` runs an agent turn on a message and says which agent version ran.
    """

    tool_of: ToolResolver
    agent_step: AgentStep
    dispatcher: ToolDispatcher
    flow_of: FlowResolver = field(default=lambda flow_id, version: None)
    depth: int = 0
    _calls: int = field(default=0)

    async def run(self, node: FlowNode, node_input: JSON, env: FlowEnv | None = None) -> FlowStep:
        """One node's step; never raises for the node's own failure."""
        if node.kind == "loop":
            return await self._loop(node, node_input, env or FlowEnv(node_input, {}))
        if node.kind == "agent":
            return await self._agent(node, node_input)
        if node.kind == "fanout":
            return await self._fanout(node, node_input)
        if node.kind == "subgraph":
            return await self._subgraph(node, node_input)
        return await self._tool(node, node_input)

    async def _tool(self, node: FlowNode, node_input: JSON) -> FlowStep:
        manifest = self.tool_of(node)
        tool_id = node.target_id or ""
        arguments: JSONObject = (
            node_input if isinstance(node_input, dict) else {"input": node_input}
        )
        call = ToolCall(tool_id, arguments, id=f"{node.id}:{self._calls}")
        self._calls += 1
        if manifest is None:
            error = f"The pack serves no tool {node.ref}."
            return FlowStep(
                node.id, "tool", tool_id, node.pinned_version or "", arguments, error=error
            )
        record = await self.dispatcher.call(self._calls - 1, call, dict(manifest))
        refused = record.source == "refused"
        return FlowStep(
            node.id,
            "tool",
            tool_id,
            record.tool_version,
            arguments,
            output=record.result if record.error is None else None,
            error=record.error,
            source=record.source,
            tool_calls=(record,),
            stopped=StoppedCall(tool_id, arguments, record.reason or "") if refused else None,
        )

    async def _agent(self, node: FlowNode, node_input: JSON) -> FlowStep:
        message = agent_message(node_input)
        version, turn = await self.agent_step(node, message, self.dispatcher)
        output = turn.output if turn.output is not None else (turn.response or {}).get("content")
        error = None if turn.failure is None else str(turn.failure.get("message"))
        return FlowStep(
            node.id,
            "agent",
            node.target_id or "",
            version,
            node_input,
            output=output if error is None else None,
            error=error,
            tool_calls=tuple(turn.tool_calls),
            turn=turn,
        )

    async def _fanout(self, node: FlowNode, node_input: JSON) -> FlowStep:
        """Each branch's handler (a tool, else an agent) on the node's input, converged."""
        branches = node.parts("branches")
        convergence = str(node.spec.get("convergence", "settle-all"))
        gate = asyncio.Semaphore(node.whole("concurrency", 0) or len(branches) or 1)

        async def branch(spec: Mapping[str, JSON]) -> FlowStep:
            handler = str(spec.get("handler", ""))
            leaf = FlowNode(f"{node.id}.{spec.get('branchId')}", "tool", handler)
            if self.tool_of(leaf) is None:
                leaf = FlowNode(leaf.id, "agent", handler)
            async with gate:
                step = await (self._tool if leaf.kind == "tool" else self._agent)(leaf, node_input)
            problem = _schema_problem(spec.get("outputSchema"), step)
            return step if problem is None else replace(step, output=None, error=problem)

        steps = await _settle([branch(b) for b in branches], convergence)
        calls = tuple(c for step in steps for c in step.tool_calls)
        stopped = next((step.stopped for step in steps if step.stopped is not None), None)
        ids = {f"{node.id}.{b.get('branchId')}": str(b.get("branchId")) for b in branches}
        by_branch = {ids[step.node_id]: step for step in steps}
        output, error = _converged(by_branch, convergence)
        return FlowStep(
            node.id,
            "fanout",
            "",
            "",
            node_input,
            output=output,
            error=error,
            tool_calls=calls,
            stopped=stopped,
        )

    async def _subgraph(self, node: FlowNode, node_input: JSON) -> FlowStep:
        """Another registered flow run as this node, its outcome projected by `convergence`."""
        ref = node.part("flowRef")
        flow_id, version = str(ref.get("flowId", "")), str(ref.get("version", ""))
        child = self.flow_of(flow_id, version)
        if child is None or self.depth >= MAX_SUBFLOW_DEPTH:
            missing = (
                f"No flow {flow_id} {version} is registered."
                if child is None
                else f"Sub-flows nest deeper than {MAX_SUBFLOW_DEPTH}."
            )
            return FlowStep(node.id, "subgraph", flow_id, version, node_input, error=missing)
        inner = replace(self, depth=self.depth + 1)
        outcome = await run_flow(child, node_input, inner)
        self._calls = max(self._calls, inner._calls)
        step = FlowStep(
            node.id,
            "subgraph",
            flow_id,
            version,
            node_input,
            tool_calls=tuple(outcome.tool_calls),
            stopped=outcome.stopped,
        )
        error = outcome.failure if outcome.status == "failed" else None
        if error is None and outcome.status == "completed":
            error = _schema_problem(
                node.spec.get("outputSchema"), replace(step, output=outcome.output)
            )
        if node.spec.get("convergence") == "success-only":
            return replace(step, output=None if error else outcome.output, error=error)
        envelope: JSONObject = (
            {"status": "failed", "error": error}
            if error
            else {"status": "succeeded", "output": outcome.output}
        )
        return replace(step, output=envelope)

    async def _loop(self, node: FlowNode, node_input: JSON, env: FlowEnv) -> FlowStep:
        """The body once per element (`foreach`) or until the exit condition holds (`while`)."""
        spec = node.spec
        body = node.body
        limit = node.whole("maxIterations", 1)
        step = FlowStep(node.id, "loop", "", "", node_input)
        if spec.get("loopKind") == "foreach":
            items = resolve(node.part("iterateOver"), env)
            if not isinstance(items, list):
                return replace(step, error="iterateOver does not resolve to a list.")
            inputs: list[JSON] = items[:limit]
            reason = "max-iterations" if len(items) > limit else "array-exhausted"
        else:
            inputs, reason = [node_input], "max-iterations"
        exit_when = node.part("exitCondition")
        before = spec.get("evaluationTiming") == "before"
        outputs: list[JSON] = []
        calls: list[ToolCallRecord] = []
        index = 0
        while index < min(limit, len(inputs)):
            if exit_when and before and _exits(exit_when, env, index, outputs):
                reason = "condition-met"
                break
            outcome = await run_flow(
                body, env.run_input, self, start_value=inputs[index], outer=env.node_outputs
            )
            calls += outcome.tool_calls
            if outcome.status != "completed":
                failure = (
                    f"Iteration {index} failed: {outcome.failure}" if outcome.failure else None
                )
                return replace(
                    step, error=failure, tool_calls=tuple(calls), stopped=outcome.stopped
                )
            problem = _schema_problem(
                spec.get("outputSchema"), replace(step, output=outcome.output)
            )
            if problem is not None:
                return replace(step, error=f"Iteration {index}: {problem}", tool_calls=tuple(calls))
            outputs.append(outcome.output)
            outer = {**env.node_outputs, **{s.node_id: s.output for s in outcome.steps}}
            index += 1
            done = replace(env, node_outputs=outer)
            if exit_when and not before and _exits(exit_when, done, index - 1, outputs):
                reason = "condition-met"
                break
            if spec.get("loopKind") != "foreach":
                inputs.append(outcome.output)
        output: JSONObject = {"iterations": len(outputs), "stopReason": reason}
        if outputs:
            output["finalOutput"] = outputs[-1]
        if spec.get("collectAllIterations"):
            output["outputs"] = outputs
        return replace(step, output=output, tool_calls=tuple(calls))


def _exits(condition: Mapping[str, JSON], env: FlowEnv, index: int, outputs: list[JSON]) -> bool:
    """A while loop's exit condition, with `iterationIndex` and `iterationOutput` (the previous
    iteration's before one runs, null before the first; the iteration's own after it)."""
    last = outputs[-1] if outputs else None
    return holds(condition, replace(env, iteration_index=index, iteration_output=last))


async def _settle(work: list[Awaitable[FlowStep]], convergence: str) -> list[FlowStep]:
    """The branches' steps: all of them, or up to the one that decides the convergence
    (the first failure for `all-succeed`, the first success for `any-succeed`)."""
    tasks = [asyncio.ensure_future(w) for w in work]
    done_steps: list[FlowStep] = []
    try:
        for finished in asyncio.as_completed(tasks):
            step = await finished
            done_steps.append(step)
            failed = step.error is not None or step.stopped is not None
            if (convergence == "all-succeed" and failed) or (
                convergence == "any-succeed" and not failed
            ):
                break
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return done_steps


def _converged(steps: Mapping[str, FlowStep], convergence: str) -> tuple[JSON, str | None]:
    """A fanout's output (or error) from its branches' steps, by branch id."""
    failed = {b: s for b, s in steps.items() if s.error is not None or s.stopped is not None}
    if convergence == "all-succeed":
        if failed:
            branch, step = next(iter(failed.items()))
            return None, f"Branch {branch} failed: {step.error}"
        return {b: s.output for b, s in steps.items()}, None
    if convergence == "any-succeed":
        won = [(b, s) for b, s in steps.items() if b not in failed]
        if not won:
            return None, "Every branch failed."
        return {"winnerBranchId": won[0][0], "output": won[0][1].output}, None
    return {
        b: (
            {"status": "failed", "error": s.error}
            if b in failed
            else {"status": "succeeded", "output": s.output}
        )
        for b, s in steps.items()
    }, None


def _schema_problem(schema: JSON, step: FlowStep) -> str | None:
    """Why a step's output breaks its declared `outputSchema`, or None (also when it failed)."""
    if not isinstance(schema, dict) or step.error is not None or step.stopped is not None:
        return None
    error = first_error(schema, step.output)
    return None if error is None else f"The output does not match its outputSchema: {error}"


def agent_message(node_input: JSON) -> str:
    """What an agent step is asked: `userMessage`, a string input, else the input as JSON."""
    if isinstance(node_input, dict) and isinstance(node_input.get("userMessage"), str):
        return str(node_input["userMessage"])
    if isinstance(node_input, str):
        return node_input
    return json.dumps(node_input, ensure_ascii=False, sort_keys=True)


async def run_flow(
    flow: FlowDefinition,
    run_input: JSON,
    runner: NodeRunner,
    *,
    max_parallelism: int | None = None,
    start_value: Resolved = MISSING,
    outer: Mapping[str, JSON] | None = None,
) -> FlowOutcome:
    """Run every node whose edges are taken, at most `maxParallelism` at once, in order.

    A loop body runs with `start_value` (its iteration's input) and the enclosing flow's
    node outputs as `outer`.
    """
    limit = max(1, max_parallelism or flow.max_parallelism or DEFAULT_PARALLELISM)
    progress = FlowProgress(flow, run_input, start_value=start_value, outer=dict(outer or {}))
    steps: list[FlowStep] = []
    queue: list[FlowNode] = []
    running: dict[asyncio.Task[FlowStep], FlowNode] = {}
    try:
        while True:
            for node in progress.advance():
                progress.started.add(node.id)
                queue.append(node)
            if len(queue) == 1 and not running:  # a chain's next node: awaited, no task
                node = queue.pop(0)
                step = await runner.run(node, progress.node_input(node), progress.env)
                ended = _took(node, step, steps, progress)
                if ended is not None:
                    return ended
                continue
            while queue and len(running) < limit:
                node = queue.pop(0)
                work = runner.run(node, progress.node_input(node), progress.env)
                task = asyncio.create_task(work)
                running[task] = node
            if not running:
                break
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in sorted(done, key=lambda t: running[t].id):
                node = running.pop(task)
                ended = _took(node, task.result(), steps, progress)
                if ended is not None:
                    return ended
    finally:
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)
    return _finished(flow, progress, steps)


def _took(
    node: FlowNode, step: FlowStep, steps: list[FlowStep], progress: FlowProgress
) -> FlowOutcome | None:
    """Keep a node's finished step: the outcome when it stops or fails the flow, else None
    (its output is then the node's for the nodes after it)."""
    steps.append(step)
    ended = _ended(step, steps, progress)
    if ended is None:
        progress.outputs[node.id] = step.output
    return ended


def _ended(step: FlowStep, steps: list[FlowStep], progress: FlowProgress) -> FlowOutcome | None:
    """The outcome when a step stops or fails the flow, else None."""
    skipped = tuple(sorted(progress.skipped))
    if step.stopped is not None:
        return FlowOutcome("stopped", None, tuple(steps), skipped, stopped=step.stopped)
    if step.error is not None:
        what = f"{step.kind} {step.target_id}".strip()
        failure = f"Node {step.node_id} ({what}) failed: {step.error}"
        return FlowOutcome("failed", None, tuple(steps), skipped, failure=failure)
    return None


def _finished(flow: FlowDefinition, progress: FlowProgress, steps: list[FlowStep]) -> FlowOutcome:
    """The completed run's output, checked against the flow's output schema when it has one."""
    output = progress.output()
    skipped = tuple(sorted(progress.skipped))
    if flow.output_schema is not None:
        error = first_error(flow.output_schema, output)
        if error is not None:
            failure = f"The flow's output does not match its output schema: {error}"
            return FlowOutcome("failed", None, tuple(steps), skipped, failure=failure)
    return FlowOutcome("completed", output, tuple(steps), skipped)
