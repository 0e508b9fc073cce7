"""What an agent turn did and answered, and the run `output` it becomes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kindgi_dev.domain.json import JSON, JSONObject
from kindgi_dev.runtime.tool_calls import ToolCallRecord
from kindgi_dev.runtime.turn_snapshot import TurnSnapshot


@dataclass
class TurnOutcome:
    """What a turn did and answered; `failure` ({code, message}) is set when it failed.
    Untyped: the appended messages, the failure and the violations are read by key in the
    replay's services, until they become records of their own."""

    appended: list[dict[str, Any]]
    response: JSONObject | None
    output: JSON
    tool_calls: list[ToolCallRecord]
    usage: JSONObject
    provider: dict[str, str]
    failure: dict[str, Any] | None = None
    violations: list[dict[str, Any]] = field(default_factory=list)
    """The guardrail violations on the turn: those a `halt` failed it for, or the others."""
    guardrail_errors: list[JSONObject] = field(default_factory=list)
    """Guardrails whose check couldn't run."""
    paused: TurnSnapshot | None = None
    """Set when a call was held for an approval: the turn as it stood."""

    @property
    def ok(self) -> bool:
        """Whether the turn answered (it neither failed nor paused)."""
        return self.failure is None and self.paused is None


class TurnFailed(Exception):
    """Ends a turn with a run failure code and a message for the person reading the run."""

    def __init__(self, code: str, message: str, reason: str | None = None) -> None:
        self.code = code
        self.message = message
        self.reason = reason
        super().__init__(message)

    def to_failure(self) -> JSONObject:
        """The run's `failure` object."""
        failure: JSONObject = {"code": self.code, "message": self.message}
        return failure if self.reason is None else {**failure, "reason": self.reason}


def turn_result(
    outcome: TurnOutcome, run_id: str, conversation_id: str, turn_number: int
) -> JSONObject:
    """The run's `output` for an agent turn (the `AgentTurnResult` shape)."""
    result: JSONObject = {
        "runId": run_id,
        "conversationId": conversation_id,
        "turnNumber": turn_number,
        "appended": [*outcome.appended],
    }
    if outcome.response is not None:
        result["response"] = outcome.response
    result.update(
        retrieved=[],
        violations=[*outcome.violations],
        usage=outcome.usage,
        provider={**outcome.provider},
    )
    if outcome.guardrail_errors:
        result["evaluationErrors"] = [*outcome.guardrail_errors]
    if outcome.output is not None:
        result["output"] = outcome.output
    return result
