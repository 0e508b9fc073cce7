"""Guardrails: which of an agent's guardrails a turn is checked by, the trace a check reads,
and what the checks come to (a `halt` fails the turn; any other action is recorded on it).

As a deployed runtime does it: a guardrail applies by its `scope` (`when`: `always`,
`runtime-only` for live turns, `ci-only` for replays; then `agents`, `flows`, `tenants`),
and a check that can't run counts as one that failed when its action is `halt`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from .json import JSON, JSONObject
from .narrow import object_of, object_or_none, objects_of, text_or_none, texts_of

Mode = Literal["runtime", "ci"]
HALT = "halt"


@dataclass(frozen=True)
class Guardrail:
    """A guardrail as the pack declares it: its check, what a violation does, where it applies."""

    id: str
    kind: str
    check: str
    action: JSONObject
    name: str | None = None
    description: str | None = None
    severity: str | None = None
    config: JSONObject | None = None
    scope: JSONObject | None = None

    @classmethod
    def from_index(cls, entry: Mapping[str, JSON]) -> Guardrail:
        """An index entry (`checkId`, else the guardrail's id, names its check)."""
        return cls(
            id=str(entry["id"]),
            kind=str(entry.get("kind") or "zero-llm"),
            check=str(entry.get("checkId") or entry["id"]),
            action=object_of(entry.get("action")) or {"on-violation": "log-only"},
            name=text_or_none(entry.get("name")),
            description=text_or_none(entry.get("description")),
            severity=text_or_none(entry.get("severity")),
            config=object_or_none(entry.get("config")),
            scope=object_or_none(entry.get("scope")),
        )

    @property
    def on_violation(self) -> str:
        """What a failed check does: `halt`, `log-only`, or another action's name."""
        return str(self.action.get("on-violation", "log-only"))


@dataclass(frozen=True)
class TurnFacts:
    """Who and where a check's turn is."""

    run_id: str
    tenant_id: str
    project_id: str
    agent_id: str
    conversation_id: str
    turn_number: int
    mode: Mode
    flow_id: str | None = None


def applies(guardrail: Guardrail, turn: TurnFacts) -> bool:
    """Whether the guardrail's scope takes in this turn."""
    scope = guardrail.scope or {}
    when = scope.get("when") or "always"
    if (when == "ci-only" and turn.mode != "ci") or (
        when == "runtime-only" and turn.mode != "runtime"
    ):
        return False
    for key, value in (
        ("agents", turn.agent_id),
        ("flows", turn.flow_id),
        ("tenants", turn.tenant_id),
    ):
        named = scope.get(key)
        if named and value not in texts_of(named):
            return False
    return True


def of_agent(agent: Mapping[str, JSON], known: Iterable[Guardrail]) -> list[Guardrail]:
    """The agent's guardrails (by the ids it lists) that the pack has, in its order."""
    by_id = {g.id: g for g in known}
    return [by_id[i] for i in texts_of(agent.get("guardrails")) if i in by_id]


def trace(
    turn: TurnFacts,
    appended: Sequence[Mapping[str, JSON]],
    usage: Mapping[str, JSON],
    provider: Mapping[str, str],
    *,
    at: str,
    typed: JSON = None,
) -> JSONObject:
    """The `RunTrace` a check evaluates: the answer's text, tool calls and results, the model
    call, the user's message and the turn's place (every record stamped `at`)."""
    answer: Mapping[str, JSON] = next(
        (m for m in reversed(appended) if m.get("role") == "agent"), {}
    )
    text = answer.get("content")
    model_call = {
        "providerId": provider.get("id", ""),
        "model": provider.get("model", ""),
        "promptTokens": usage.get("promptTokens", 0),
        "completionTokens": usage.get("completionTokens", 0),
        "at": at,
    }
    attributes: JSONObject = {"steps": usage.get("steps", 0)}
    if typed is not None:
        attributes["structuredOutput"] = typed
    found: JSONObject = {
        "runId": turn.run_id,
        "tenantId": turn.tenant_id,
        "projectId": turn.project_id,
        "agentId": turn.agent_id,
        "output": text if isinstance(text, str) else json.dumps(text),
        **_tool_records(appended, at),
        "modelCalls": [model_call],
        "mode": turn.mode,
        "userInput": next((m.get("content") for m in appended if m.get("role") == "user"), ""),
        "conversationId": turn.conversation_id,
        "turnNumber": turn.turn_number,
        "totalCostUsd": usage.get("totalCostUsd", 0),
        "durationMs": usage.get("durationMs", 0),
        "attributes": attributes,
    }
    if turn.flow_id is not None:
        found["flowId"] = turn.flow_id
    return found


def _tool_records(appended: Sequence[Mapping[str, JSON]], at: str) -> JSONObject:
    """The trace's `toolCalls` and `toolResults`, from the turn's messages."""
    calls: list[JSON] = []
    results: list[JSON] = []
    for message in appended:
        for call in objects_of(message.get("toolCalls")):
            tool = call["toolId"]
            calls.append(
                {
                    "toolId": tool,
                    "toolName": tool,
                    "arguments": call.get("arguments") or {},
                    "at": at,
                }
            )
        if message.get("role") == "tool" and message.get("toolCall"):
            invocation = object_of(message["toolCall"]).get("invocationId", "")
            results.append({"toolCallId": invocation, "output": message.get("content"), "at": at})
    return {"toolCalls": calls, "toolResults": results}


@dataclass(frozen=True)
class Checked:
    """What one guardrail's check came to: its result (`passed`, `reason`…), or an error."""

    guardrail: Guardrail
    result: JSONObject | None = None
    error: tuple[str, str] | None = None
    """`(code, message)` when the check couldn't run."""
    at: str = ""


@dataclass(frozen=True)
class GateOutcome:
    """The checks of a turn sorted by what they do to it."""

    blocking: list[JSONObject] = field(default_factory=list)
    recorded: list[JSONObject] = field(default_factory=list)
    errors: list[JSONObject] = field(default_factory=list)
    blocking_errors: list[JSONObject] = field(default_factory=list)
    checks: list[tuple[str, str]] = field(default_factory=list)
    """Each checked guardrail and its outcome: passed, violated, blocked or errored."""

    @property
    def halts(self) -> bool:
        """Whether the turn fails: a `halt` guardrail failed, or couldn't check."""
        return bool(self.blocking or self.blocking_errors)

    def message(self) -> str:
        """Why the turn was blocked, naming each guardrail and its check's reason."""
        failed = [(f"'{v['guardrailId']}'", _reason(v)) for v in self.blocking]
        broken = [
            f"'{e['guardrailId']}' couldn't run its check ({e['code']}: {e['message']})"
            for e in self.blocking_errors
        ]
        if len(failed) == 1 and not broken:
            name, reason = failed[0]
            return f"Turn blocked by guardrail {name}" + (f": {reason}" if reason else "")
        if not failed and len(broken) == 1:
            return f"Turn blocked: guardrail {broken[0]}"
        named = [name + (f" ({reason})" if reason else "") for name, reason in failed] + broken
        return f"Turn blocked by {len(named)} guardrails: " + "; ".join(named)


def _reason(violation: Mapping[str, JSON]) -> str:
    return str(object_of(violation["result"]).get("reason") or "").strip()


def sort_out(checked: Sequence[Checked]) -> GateOutcome:
    """Each check as a violation that blocks, one recorded on the turn, or an error."""
    outcome = GateOutcome()
    for one in checked:
        g = one.guardrail
        severity = g.severity or "error"
        if one.error is not None:
            error: JSONObject = {
                "guardrailId": g.id,
                "code": one.error[0],
                "message": one.error[1],
                "action": g.on_violation,
                "severity": severity,
            }
            outcome.errors.append(error)
            if g.on_violation == HALT:
                outcome.blocking_errors.append(error)
            outcome.checks.append((g.id, "errored"))
            continue
        result = one.result or {"passed": True}
        if result.get("passed"):
            outcome.checks.append((g.id, "passed"))
            continue
        violation: JSONObject = {
            "guardrailId": g.id,
            "result": result,
            "action": g.on_violation,
            "severity": severity,
            "at": one.at,
        }
        blocked = g.on_violation == HALT
        (outcome.blocking if blocked else outcome.recorded).append(violation)
        outcome.checks.append((g.id, "blocked" if blocked else "violated"))
    return outcome
