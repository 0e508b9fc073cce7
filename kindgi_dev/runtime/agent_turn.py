"""One agent turn: ask the model, carry out its tool calls, check its typed answer, repeat.

The turn records what a replay needs: the wire messages it appended (user, agent steps,
tool results, the answer), every tool call with its source, the usage and who answered.
Invalid typed answers are sent back to the model to repair; they are not appended.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kindgi_dev.domain.json import JSON, JSONObject
from kindgi_dev.domain.narrow import object_of
from kindgi_dev.models import Message, Reply, ToolCall, ToolSpec, Turn
from kindgi_dev.runtime.approval_gate import HeldCall
from kindgi_dev.runtime.providers.base import ModelAdapter, ModelError
from kindgi_dev.runtime.tool_calls import ToolCallRecord, ToolDispatcher
from kindgi_dev.runtime.turn_history import HISTORY_LIMIT, history_messages
from kindgi_dev.runtime.turn_outcome import TurnFailed, TurnOutcome, turn_result
from kindgi_dev.runtime.turn_snapshot import TurnSnapshot
from kindgi_dev.runtime.typed_output import OutputSchema, output_problem, output_validator

__all__ = [
    "HISTORY_LIMIT",
    "TurnFailed",
    "TurnOutcome",
    "history_messages",
    "resume_agent_turn",
    "run_agent_turn",
    "turn_result",
]

DEFAULT_MAX_STEPS = 10
DEFAULT_MAX_REPAIRS = 2
DEFAULT_TIMEOUT_S = 120.0


async def run_agent_turn(
    agent: Mapping[str, JSON],
    tools: Mapping[str, Mapping[str, JSON]],
    message: str,
    history: Sequence[Mapping[str, JSON]],
    adapter: ModelAdapter,
    dispatcher: ToolDispatcher,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> TurnOutcome:
    """Run one turn of `agent` on the user's `message`, after the conversation `history`.

    The whole turn is bounded by `budget.maxWallMs` when the agent sets it, else `timeout_s`.
    """
    state = _TurnState(agent, tools, adapter, dispatcher, _Budget.of(agent, timeout_s))
    return await _drive(state, state.run(message, history))


async def resume_agent_turn(
    agent: Mapping[str, JSON],
    tools: Mapping[str, Mapping[str, JSON]],
    snapshot: TurnSnapshot,
    adapter: ModelAdapter,
    dispatcher: ToolDispatcher,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> TurnOutcome:
    """Go on with a turn paused at a held call: the step's calls still to make (the held
    one first, which the dispatcher now knows the decision on), then the model again."""
    state = _TurnState(agent, tools, adapter, dispatcher, _Budget.of(agent, timeout_s))
    state.restore(snapshot)
    return await _drive(state, state.resume(snapshot.pending), already_ms=snapshot.elapsed_ms)


async def _drive(
    state: _TurnState, work: Coroutine[object, object, None], already_ms: int = 0
) -> TurnOutcome:
    """Run the turn within its wall time; a failure ends it, a held call pauses it."""
    started = time.monotonic()
    wall_s = state.budget.wall_s
    try:
        async with asyncio.timeout(wall_s):
            await work
    except _Paused:
        pass
    except TurnFailed as failed:
        state.failure = failed.to_failure()
    except ModelError as error:
        state.failure = {"code": "model-invocation-failed", "message": error.message}
    except TimeoutError:
        state.failure = TurnFailed(
            "budget-exceeded",
            f"The turn did not finish within {wall_s:g} s, so it was stopped.",
            reason="max-wall-time",
        ).to_failure()
    return state.outcome(already_ms + round((time.monotonic() - started) * 1000))


class _Paused(Exception):
    """A call was held for an approval: the turn stops here, its snapshot kept."""


@dataclass(frozen=True)
class _Budget:
    """How far a turn may go: model steps, repairs of its typed answer, wall time."""

    max_steps: int
    max_repairs: int
    wall_s: float

    @classmethod
    def of(cls, agent: Mapping[str, JSON], timeout_s: float) -> _Budget:
        """`budget.maxSteps`, `output.maxRepairs` and `budget.maxWallMs`, else the defaults."""
        budget, output = object_of(agent.get("budget")), object_of(agent.get("output"))
        steps, repairs, wall_ms = (
            budget.get("maxSteps"),
            output.get("maxRepairs"),
            budget.get("maxWallMs"),
        )
        return cls(
            max_steps=steps if isinstance(steps, int) and steps >= 1 else DEFAULT_MAX_STEPS,
            max_repairs=repairs
            if isinstance(repairs, int) and repairs >= 0
            else DEFAULT_MAX_REPAIRS,
            wall_s=wall_ms / 1000
            if isinstance(wall_ms, int | float) and wall_ms > 0
            else timeout_s,
        )


@dataclass
class _TurnState:
    """The messages, records and counters of a turn while it runs."""

    agent: Mapping[str, JSON]
    tools: Mapping[str, Mapping[str, JSON]]
    adapter: ModelAdapter
    dispatcher: ToolDispatcher
    budget: _Budget
    messages: list[Message] = field(default_factory=list)
    appended: list[dict[str, Any]] = field(default_factory=list)
    """Untyped: as `TurnOutcome.appended`, which the replay's services read by key."""
    records: list[ToolCallRecord] = field(default_factory=list)
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str | None = None
    response: JSONObject | None = None
    output: JSON = None
    failure: dict[str, Any] | None = None
    """Untyped: as `TurnOutcome.failure`."""
    repairs: int = 0
    paused: TurnSnapshot | None = None

    def restore(self, snapshot: TurnSnapshot) -> None:
        """Take up the state a paused turn kept."""
        self.messages = list(snapshot.messages)
        self.appended = list(snapshot.appended)
        self.records = list(snapshot.records)
        self.steps = snapshot.steps
        self.prompt_tokens = snapshot.prompt_tokens
        self.completion_tokens = snapshot.completion_tokens
        self.model = snapshot.model
        self.repairs = snapshot.repairs

    async def resume(self, pending: Sequence[ToolCall]) -> None:
        """Make the step's calls still to make, then ask the model on."""
        await self._make_calls(pending)
        await self._loop(output_validator(self.agent))

    async def run(self, message: str, history: Sequence[Mapping[str, JSON]]) -> None:
        """Ask, call tools and repair until the model answers within the budget."""
        self.appended.append({"role": "user", "content": message})
        instructions = self.agent.get("instructions")
        if not isinstance(instructions, str):
            raise TurnFailed(
                "model-invocation-failed",
                f"The instructions of {self.agent.get('id')} name a prompt block"
                f" ({instructions!r}); kindgi dev runs only instructions given as text.",
            )
        validator = output_validator(self.agent)
        self.messages = [
            Message(role="system", content=instructions),
            *history_messages(history),
            Message(role="user", content=message),
        ]
        await self._loop(validator)

    async def _loop(self, validator: OutputSchema | None) -> None:
        """Ask, call tools and repair until the model answers within the budget."""
        while self.steps < self.budget.max_steps:
            reply = await self._ask(validator)
            if reply.tool_calls:
                await self._call_tools(reply)
                continue
            problem = None if validator is None else output_problem(validator, reply.output)
            if problem is None:
                self._answer(reply, typed=validator is not None)
                return
            if self.repairs >= self.budget.max_repairs:
                raise TurnFailed(
                    "output-schema-violation",
                    f"The answer's output does not match the agent's output schema"
                    f" after {self.repairs} repairs: {problem}",
                )
            self.repairs += 1
            self._ask_repair(reply, problem)
        raise TurnFailed(
            "budget-exceeded",
            f"The turn used all {self.budget.max_steps} steps (budget.maxSteps) without answering.",
            reason="max-steps",
        )

    async def _ask(self, validator: OutputSchema | None) -> Reply:
        """One model step."""
        turn = Turn(
            agent_id=str(self.agent.get("id", "")),
            agent_version=str(self.agent.get("version", "")),
            instructions=str(self.agent.get("instructions", "")),
            messages=tuple(self.messages),
            tools=tuple(_tool_spec(manifest) for manifest in self.tools.values()),
            output_schema=None if validator is None else dict(object_of(validator.schema)),
            model=self.adapter.model,
            step=self.steps,
        )
        reply = await self.adapter.next_step(turn)
        self.steps += 1
        self.prompt_tokens += reply.usage.prompt_tokens
        self.completion_tokens += reply.usage.completion_tokens
        self.model = reply.model or self.adapter.model
        return reply

    async def _call_tools(self, reply: Reply) -> None:
        """Record the step's calls, carry each out, and give the model every result."""
        calls = tuple(reply.tool_calls)
        self.appended.append(
            {
                "role": "agent",
                "content": reply.text,
                "toolCalls": [
                    {"id": c.id, "toolId": c.tool_id, "arguments": c.arguments} for c in calls
                ],
            }
        )
        self.messages.append(Message(role="assistant", content=reply.text, tool_calls=calls))
        await self._make_calls(calls)

    async def _make_calls(self, calls: Sequence[ToolCall]) -> None:
        """Carry out each call and give the model its result; a held call pauses the turn
        with the calls still to make."""
        for position, call in enumerate(calls):
            try:
                record = await self._dispatch(self.steps - 1, call)
            except HeldCall:
                self.paused = self._snapshot(list(calls[position:]))
                raise _Paused from None
            self.records.append(record)
            content = record.result if record.error is None else {"error": record.error}
            self.appended.append(
                {
                    "role": "tool",
                    "content": content,
                    "toolCall": {"toolId": call.tool_id, "invocationId": call.id},
                }
            )
            self.messages.append(
                Message(
                    role="tool",
                    content=record.result,
                    tool_call_id=call.id,
                    tool_id=call.tool_id,
                    error=record.error,
                )
            )

    async def _dispatch(self, step: int, call: ToolCall) -> ToolCallRecord:
        """The dispatcher's record; a dispatcher that raises gives an error record instead."""
        manifest = self.tools.get(call.tool_id)
        try:
            return await self.dispatcher.call(
                step, call, None if manifest is None else dict(manifest)
            )
        except HeldCall:
            raise
        except Exception as cause:
            return ToolCallRecord(
                step=step,
                call_id=call.id,
                tool_id=call.tool_id,
                tool_version=str((manifest or {}).get("version", "")),
                arguments=call.arguments,
                result=None,
                error=f"The tool call failed: {type(cause).__name__}: {cause}",
                source="refused" if manifest is None else "live",
            )

    def _ask_repair(self, reply: Reply, problem: str) -> None:
        """Show the model its invalid answer and what is wrong with it."""
        self.messages.append(Message(role="assistant", content=_answer_text(reply)))
        self.messages.append(
            Message(
                role="system",
                content=f"Your answer's output does not match the output schema: {problem}."
                " Answer again, with output that matches the schema.",
            )
        )

    def _answer(self, reply: Reply, *, typed: bool) -> None:
        self.response = {"role": "agent", "content": _answer_text(reply)}
        self.appended.append(self.response)
        self.output = reply.output if typed else None

    def _snapshot(self, pending: list[ToolCall]) -> TurnSnapshot:
        return TurnSnapshot(
            messages=list(self.messages),
            appended=list(self.appended),
            records=list(self.records),
            steps=self.steps,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            model=self.model,
            repairs=self.repairs,
            pending=pending,
            elapsed_ms=0,
        )

    def outcome(self, duration_ms: int) -> TurnOutcome:
        """The turn as it ended (or paused: its snapshot, with the time it took so far)."""
        paused = None if self.paused is None else replace(self.paused, elapsed_ms=duration_ms)
        return TurnOutcome(
            appended=self.appended,
            response=self.response,
            output=self.output,
            tool_calls=self.records,
            usage={
                "steps": self.steps,
                "promptTokens": self.prompt_tokens,
                "completionTokens": self.completion_tokens,
                "totalCostUsd": 0,
                "durationMs": duration_ms,
            },
            provider={"id": self.adapter.provider_id, "model": self.model or self.adapter.model},
            failure=self.failure,
            paused=paused,
        )


def _answer_text(reply: Reply) -> str:
    """The answer's words; a typed answer with no words shows as its JSON."""
    if reply.text is not None:
        return reply.text
    return "" if reply.output is None else json.dumps(reply.output, ensure_ascii=False)


def _tool_spec(manifest: Mapping[str, JSON]) -> ToolSpec:
    mutating, effects = manifest.get("mutating"), manifest.get("effects")
    return ToolSpec(
        id=str(manifest["id"]),
        version=str(manifest.get("version", "")),
        description=str(manifest.get("description", "")),
        input_schema=object_of(manifest.get("input")) or {"type": "object"},
        mutating=mutating if isinstance(mutating, bool) else None,
        effects=tuple(e for e in effects if isinstance(e, dict))
        if isinstance(effects, list)
        else (),
    )
